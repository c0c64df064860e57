/**
 * Fetching a take's audio the way the contract says: GET the format endpoint (307), check the
 * signed Location, follow it without Authorization.
 */
import type { AudioFormat } from '../../src/checks/audio.ts';
import { Finding, show } from '../../src/checks/finding.ts';
import { assertSignedRedirect, type SignedRedirect } from '../../src/checks/redirect.ts';
import { against, type Exchange, type SpeakContext } from '../../src/harness/index.ts';

export interface FetchedAudio {
  redirect: Exchange;
  signed: SignedRedirect;
  audio: Exchange;
}

/**
 * assertSignedRedirect, its finding naming the requirement it is evidence against: no 307 is
 * AUDIO-307, a 307 whose Location is not a signed absolute URL is AUDIO-SIGNED-LOCATION.
 */
export function signedRedirect(exchange: Exchange): SignedRedirect {
  return against(exchange.status === 307 ? 'AUDIO-SIGNED-LOCATION' : 'AUDIO-307', () =>
    assertSignedRedirect(exchange),
  );
}

/**
 * GET the format endpoint, check the signed redirect, follow it without Authorization. Findings name
 * the requirement they are evidence against (see Finding): the redirect (above); a signed URL that
 * refuses without Authorization (401/403) is AUDIO-SIGNED-NO-AUTH; any other refusal or an empty
 * body is AUDIO-ALL-FORMATS-READY (check() uses these only in tests that cover them).
 */
export async function fetchAudio(
  s: SpeakContext,
  takeId: string,
  format: AudioFormat,
  o: { timeoutMs?: number } = {},
): Promise<FetchedAudio> {
  const redirect = await s.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`);
  const signed = signedRedirect(redirect);
  const audio = await s.api.fetchSigned(signed.location.href, o.timeoutMs ? { timeoutMs: o.timeoutMs } : {});
  if (audio.status !== 200) {
    throw new Finding(
      `GET signed ${format} URL (no Authorization) answered ${audio.status}, expected 200 with the audio: ${show(audio.text, 200)}`,
      {
        where: `signed ${format} URL`,
        expected: 200,
        actual: audio.status,
        requirement:
          audio.status === 401 || audio.status === 403 ? 'AUDIO-SIGNED-NO-AUTH' : 'AUDIO-ALL-FORMATS-READY',
      },
    );
  }
  if (audio.body.length === 0) {
    throw new Finding(`GET signed ${format} URL answered an empty body`, {
      where: `signed ${format} URL`,
      requirement: 'AUDIO-ALL-FORMATS-READY',
    });
  }
  return { redirect, signed, audio };
}
