/**
 * Waiting for time itself: the interval between two polls of a resource that has no event to await,
 * or a lifetime that has to run out. Anything that can be awaited as an event (a message, a call,
 * a socket closing) is awaited with its own bound instead.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise<void>((resolve) => setTimeout(resolve, ms));
}
