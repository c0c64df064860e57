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
  /** For a 'connect-timeout': the upgrade's route (./route.ts), as a 'hung' ClientDiagnostic names its route. */
  route?: string;
  /** The run learned the upgrade does not answer (./route-silence.ts): a run-wide fact, not this connect's alone. */
  routeLearned?: boolean;
  constructor(
    readonly kind: WsClientErrorKind,
    message: string,
    /** The HTTP status of a refused upgrade. */
    readonly status?: number,
    readonly body?: string,
    /** The Retry-After of a refused upgrade (429/503: back-pressure, src/client/back-pressure.ts). */
    readonly retryAfter?: string,
    /**
     * The socket error's code (ECONNRESET, ECONNREFUSED, ...) of a 'connect-error': whether the
     * server closed a connection it had taken, or none was made (src/checks/upgrade-refusal.ts).
     */
    readonly errno?: string,
  ) {
    super(message);
  }
}
