/** An invalid option or environment value: `speakcheck run` exits 2 with the message. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
