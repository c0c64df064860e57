/**
 * Fetching a take's audio the way the contract says: GET the format endpoint (307), check the
 * signed Location, follow it without Authorization.
 */
import type { AudioFormat } from '../../src/checks/audio.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { assertSignedRedirect, type SignedRedirect } from '../../src/checks/redirect.ts';
import type { Exchange, SpeakContext } from '../../src/harness/index.ts';

export interface FetchedAudio {
  redirect: Exchange;
  signed: SignedRedirect;
  audio: Exchange;
}

export async function fetchAudio(
  s: SpeakContext,
  takeId: string,
  format: AudioFormat,
  o: { timeoutMs?: number } = {},
): Promise<FetchedAudio> {
  const redirect = await s.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`);
  const signed = assertSignedRedirect(redirect);
  const audio = await s.api.fetchSigned(signed.location.href, o.timeoutMs ? { timeoutMs: o.timeoutMs } : {});
  if (audio.status !== 200) {
    throw new Finding(
      `GET signed ${format} URL (no Authorization) answered ${audio.status}, expected 200 with the audio: ${show(audio.text, 200)}`,
      { where: `signed ${format} URL`, expected: 200, actual: audio.status },
    );
  }
  if (audio.body.length === 0) {
    throw new Finding(`GET signed ${format} URL answered an empty body`, { where: `signed ${format} URL` });
  }
  return { redirect, signed, audio };
}
