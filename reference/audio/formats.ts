/** The audio formats a take is offered in, with what HTTP and file names call them. */
export type AudioFormat = 'wav' | 'mp3' | 'm4a' | 'flac' | 'webm';

export const AUDIO_FORMATS: Record<AudioFormat, { contentType: string; extension: string }> = {
  wav: { contentType: 'audio/wav', extension: 'wav' },
  mp3: { contentType: 'audio/mpeg', extension: 'mp3' },
  m4a: { contentType: 'audio/mp4', extension: 'm4a' },
  flac: { contentType: 'audio/flac', extension: 'flac' },
  webm: { contentType: 'audio/webm', extension: 'webm' },
};

export function isAudioFormat(value: string): value is AudioFormat {
  return Object.hasOwn(AUDIO_FORMATS, value);
}
