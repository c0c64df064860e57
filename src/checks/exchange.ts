/**
 * The part of the kit's Exchange that checks read. Declared structurally here so checks stay pure
 * (unit-testable with literal objects) and do not import the harness.
 */
export interface ExchangeLike {
  method: string;
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
  body?: Buffer;
  /** Its evidence entry's id, when it was recorded (src/client/http.ts). */
  evidenceId?: number;
  /** Sent again because its first attempt got no answer (src/client/http.ts). */
  resentAfterNoAnswer?: true;
}

/**
 * A DELETE answered 404 after the client sent it again because its first attempt got no answer
 * within its bound (src/client/http.ts: an idempotent request asks once more): the first attempt
 * may have deleted the item, so this 404 says nothing of how the server answers a delete. Such an
 * answer is not judged (RFC 9110 §9.2.2: a repeated DELETE has the same effect, not the same answer).
 */
export function deleteAnswerUnknowable(
  exchange: Pick<ExchangeLike, 'method' | 'status' | 'resentAfterNoAnswer'>,
): boolean {
  return (
    exchange.method.toUpperCase() === 'DELETE' &&
    exchange.status === 404 &&
    exchange.resentAfterNoAnswer === true
  );
}

/** The sentence for a delete whose answer cannot be judged (deleteAnswerUnknowable). */
export const RESENT_DELETE_UNKNOWABLE = {
  reason:
    'the DELETE got no answer within its bound, was sent again and answered 404: the first attempt may have deleted it, so the answer says nothing of the delete',
  wouldJudge: 'a run against a server that answers DELETE within the bound (--request-timeout)',
};

/**
 * Where a finding about `exchange` was seen, as its facts say it: the request line, and the id of
 * the exchange it rests on (the reproduction replays that one, found by id, never by the sentence).
 */
export function judgedAt(exchange: Pick<ExchangeLike, 'method' | 'url' | 'status' | 'evidenceId'>): {
  where: string;
  exchange?: number;
} {
  return {
    where: requestLine(exchange),
    ...(exchange.evidenceId !== undefined ? { exchange: exchange.evidenceId } : {}),
  };
}

/** `GET /v1/speak/takes/x/wav → 302` style label used in finding messages. */
export function requestLine(exchange: Pick<ExchangeLike, 'method' | 'url' | 'status'>): string {
  let path = exchange.url;
  try {
    const url = new URL(exchange.url);
    path = `${url.pathname}${url.search}`;
  } catch {
    // a relative URL is already a path
  }
  return `${exchange.method} ${path} → ${exchange.status}`;
}

/** Header value by case-insensitive name; the first value when repeated. */
export function header(exchange: Pick<ExchangeLike, 'headers'>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(exchange.headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}
