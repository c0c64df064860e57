/**
 * A request the contract says must not be served, where it names no status for the refusal: a
 * signed audio URL tampered or past its lifetime ("The `Location` header holds a time-limited
 * signed URL"), a refresh token after logout ("Afterwards no new access token can be obtained with
 * it."). Refused means not served: any error status. Which one is the server's choice ("Other status
 * codes, codes per condition ...: not shown"), and a gateway or blob store in front of the service
 * may answer a URL it cannot place with a 5xx; so the status is an observation, a 5xx named as a
 * server error in it, never the verdict. Where the contract or a requirement names the status (401,
 * 404) or says "a client error" (the request tables: RFC 9110 says who erred), use errors.ts instead.
 * Back-pressure (429/503) never reaches a check: the client waits it out (src/client/back-pressure.ts).
 */
import { type ExchangeLike, judgedAt, requestLine } from './exchange.ts';
import { Finding, show } from './finding.ts';

/**
 * `exchange` was refused (status 400 or more); a success or a redirect is a Finding naming `why`.
 * Returns the refusal in words for an observation ("refused with 403" / "refused with 502, a server
 * error …").
 */
export function assertNotServed(exchange: ExchangeLike, why: string): string {
  const line = requestLine(exchange);
  if (exchange.status < 400)
    throw new Finding(
      `${line}: ${why}: served with ${exchange.status}; it must be refused${exchange.status < 300 ? `: ${show(exchange.text, 120)}` : ''}`,
      { ...judgedAt(exchange), expected: 'refused (an error status)', actual: exchange.status },
    );
  return describeRefusal(exchange.status);
}

/** A refusal's status in words: a 5xx is named as a server error (no failure: the status is not shown). */
export function describeRefusal(status: number): string {
  return status >= 500
    ? `refused with ${status}, a server error (the contract shows no status for this refusal; a gateway in front of the service may answer so)`
    : `refused with ${status}`;
}
