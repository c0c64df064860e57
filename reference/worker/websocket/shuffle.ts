/**
 * Out-of-order delivery for exercising clients (stack option --ws-shuffle-window N): a request's
 * binary frames pass through a window of N; once it is full, a random frame from it is sent. The
 * protocol allows any order (receivers rebuild it from part_id and chunk_id); this makes the
 * reference stack actually use that freedom. Window 0 or 1 = in order, sent at once.
 */
export interface FrameOutlet {
  push(frame: Buffer): void;
  /** Sends what the window still holds (random order); call at the end of a request. */
  flush(): void;
}

export function createFrameOutlet(
  send: (frame: Buffer) => void,
  window: number,
  random = Math.random,
): FrameOutlet {
  if (window <= 1) return { push: send, flush: () => {} };
  const held: Buffer[] = [];
  const sendOne = () => {
    const index = Math.floor(random() * held.length);
    const [frame] = held.splice(index, 1);
    send(frame!);
  };
  return {
    push(frame) {
      held.push(frame);
      if (held.length >= window) sendOne();
    },
    flush() {
      while (held.length > 0) sendOne();
    },
  };
}
