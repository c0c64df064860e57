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
 * How to get a signed URL again for `fetchSigned`'s `reissue`: the format endpoint asked once more,
 * its Location used. For callers that follow a raw Location (no signed-redirect check of their own);
 * a second answer without a 307 and a Location is a finding against AUDIO-307, which it is.
 */
export function signedUrlAgain(s: SpeakContext, takeId: string, format: string): () => Promise<string> {
  return async () => {
    const again = await s.api.get(`/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`);
    const location = again.headers.location;
    if (again.status !== 307 || !location)
      throw new Finding(
        `asked again for a fresh signed ${format} URL (the first one had gone stale in the run's own waits): GET answered ${again.status}${location ? '' : ' without a Location'}, expected 307`,
        { where: `GET ${format}`, expected: 307, actual: again.status, requirement: 'AUDIO-307' },
      );
    return location;
  };
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
  const path = `/v1/speak/takes/${encodeURIComponent(takeId)}/${format}`;
  let redirect = await s.api.get(path);
  let signed = signedRedirect(redirect);
  const audio = await s.api.fetchSigned(signed.location.href, {
    ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    receivedAtMs: Date.now(),
    // The run's own waits (back-pressure) made the URL stale: a new 307 is asked for and judged,
    // never the server blamed for refusing a URL past the lifetime it showed (issue 37).
    reissue: async () => {
      redirect = await s.api.get(path);
      signed = signedRedirect(redirect);
      return signed.location.href;
    },
  });
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
