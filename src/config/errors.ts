import { SpeakcheckError } from '../errors.ts';

/** An invalid option or environment value: `speakcheck run` exits 2 with the message. */
export class ConfigError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_CONFIG';
  override name = 'ConfigError';
}
