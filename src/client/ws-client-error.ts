import { SpeakcheckError } from '../errors.ts';

/** What went wrong on the websocket side of the client: fetching the URL, the handshake, a send, a wait. */
export type WsClientErrorKind =
  | 'url-endpoint'
  | 'upgrade-refused'
  | 'connect-timeout'
  | 'connect-error'
  | 'send-failed'
  | 'wait-timeout'
  | 'closed';

export class WsClientError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_WS_CLIENT';
  override readonly name = 'WsClientError';
  constructor(
    readonly kind: WsClientErrorKind,
    message: string,
    /** The HTTP status of a refused upgrade. */
    readonly status?: number,
    readonly body?: string,
    /** The Retry-After of a refused upgrade (429/503: back-pressure, src/client/back-pressure.ts). */
    readonly retryAfter?: string,
  ) {
    super(message);
  }
}
