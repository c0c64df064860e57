/**
 * Webhooks, judged at the end of the run: what needs a window after a call, and a done or status
 * call that had not come when the webhooks file stopped waiting. suites/webhooks.spec.ts files an
 * entry with the run's sink when the call that opens a window arrives (the first done call, the done
 * call answered 500), or when an item was seen done and its done call, or a status call for a status
 * seen, has not come (./support/webhook-settle.ts: the contract gives them no time), and goes on; the
 * suites' sequencer (suites.vitest.config.ts) runs this file last, so by the time it judges, the
 * windows have mostly passed while the other files ran. Each window is still waited out in full when
 * the run was shorter than it; a late done or status call counts whenever it came before the
 * judging. A run whose budget (--max-time) ends while this file waits is stopped: what it waited for
 * is not concluded, never passed.
 *
 * One test per requirement; each judges every entry filed for it, whatever its kind (check() per
 * entry, so every failing entry is reported; fewer than two status calls show no order: not
 * observed; WEBHOOK-STATUS-AGREES-WEBSOCKET has a done call's window and awaited statuses). A
 * requirement no scenario filed an entry for (its scenario failed before the call arrived, which
 * the webhooks file reports) is not observed here. Like the webhooks file's, each test requires
 * that the server can call the run's sink (else not applicable).
 */
import { Finding } from '../src/checks/finding.ts';
import { assertPostedJson } from '../src/checks/webhooks.ts';
import {
  check,
  covers,
  loadRunConfig,
  notObserved,
  observe,
  type RemoteWebhookSink,
  type RequirementId,
  statusOf,
  type WebhookCall,
} from '../src/harness/index.ts';
import { judgeStatusOrder } from './support/status-order.ts';
import {
  arrivals,
  assertCalledBy,
  assertStatusesCalledBy,
  callsInWindow,
  type FiledEntry,
  judgedByRunEnd,
} from './support/webhook-settle.ts';
import { useRunSink } from './support/webhook-sink.ts';

const { sink, reachable } = useRunSink();

/** How long the judge waits for the webhooks file to finish filing: as long as that file may take. */
function producersBoundMs(): number {
  const { timeouts } = loadRunConfig();
  return 2 * timeouts.readyMs + 4 * timeouts.requestMs;
}

let entries: Promise<FiledEntry[]> | undefined;

/** Every filed entry, once the files that file them have finished (asked once per file). */
function settleEntries(theSink: RemoteWebhookSink): Promise<FiledEntry[]> {
  entries ??= theSink.settleEntries(producersBoundMs()).then(({ entries: filed, complete }) => {
    if (!complete) {
      observe(
        'webhooks.file-unfinished',
        'the webhooks file had not finished after {boundMs} ms: judging the {entries} entries it filed',
        { particulars: { boundMs: producersBoundMs(), entries: filed.length }, caught: true },
      );
    }
    return filed;
  });
  return entries;
}

/** The judges run in a check() each; 'ordered' is judged by judgeStatusOrder (it may see no order). */
const judges: Record<
  Exclude<FiledEntry['expect'], 'ordered'>,
  (entry: FiledEntry, calls: WebhookCall[]) => void
> = {
  once(entry, calls) {
    if (calls.length === 1) return;
    throw new Finding(
      `${entry.subject}: ${entry.hook}_webhook was called ${calls.length} times within ${entry.windowMs / 1000} s of the first call (${arrivals(entry, calls)}); expected exactly once`,
      { where: `${entry.subject} ${entry.hook}_webhook`, expected: 1, actual: calls.length },
    );
  },
  retried(entry, calls) {
    if (calls.length >= 2) return;
    throw new Finding(
      `${entry.subject}: the ${entry.hook} call answered 500 was not retried within ${entry.windowMs / 1000} s${entry.why ? ` (${entry.why})` : ''}`,
      { where: `${entry.subject} ${entry.hook}_webhook`, expected: '>= 2 calls', actual: calls.length },
    );
  },
  'posted-json'(entry, calls) {
    for (const call of calls)
      assertPostedJson(call, `${entry.subject}: ${call.hook}_webhook call ${call.index}`);
  },
  // `calls`: every one that came by now, after the window too (a call that came was called).
  called: (entry, calls) => assertCalledBy(entry, calls),
  'statuses-called': (entry, calls) => assertStatusesCalledBy(entry, calls),
};

/** Requirement → the test that judges its entries (and why none may be filed, when not the usual). */
const SETTLED: Array<[id: RequirementId, name: string, noEntry?: string]> = [
  ['WEBHOOK-DONE-ONCE', 'still one done call per item after the first (take 4.5 s, voice 2.5 s)'],
  ['WEBHOOK-RETRY-AFTER-5XX', 'the done call answered with 500 was retried within its window'],
  ['WEBHOOK-STATUS-ORDERED', 'status calls in status order, with those in flight after the done call'],
  ['WEBHOOK-POST-JSON', 'every webhook call, those in flight after the done call too, was a POST of JSON'],
  ['WEBHOOK-POST-URL-FORM', 'a {"post_url"} done_webhook was still called once 2.5 s after the first'],
  [
    'WEBHOOK-STATUS-CALLED',
    "a take's done status not reported by a status call within the webhooks file was reported by the end of the run",
    "the take's done status was reported by a status call within the webhooks file, which judged it",
  ],
  [
    'WEBHOOK-STATUS-AGREES-POLLING',
    'a status polled but not reported by a status call within the webhooks file was reported by the end of the run',
    'every status polled was reported by a status call within the webhooks file, which judged it',
  ],
  [
    'WEBHOOK-STATUS-AGREES-WEBSOCKET',
    "a websocket take's done_webhook was still called once 2.5 s after the first, and each status it streamed was reported by a status call by the end of the run",
    'every status streamed was reported by a status call within the webhooks file, which judged it, and no done call came there to open the window for a second',
  ],
  [
    'WEBHOOK-DONE-CALLED',
    'a done_webhook not called within the webhooks file was called by the end of the run',
    'every done call this run watched for came within the webhooks file, which judged it',
  ],
  [
    'WEBHOOK-VOICE-DONE',
    "a voice's done_webhook not called within the webhooks file was called, with the Voice, by the end of the run",
    "the voice's done call came within the webhooks file, which judged it",
  ],
];

for (const [id, name, noEntry] of SETTLED) {
  covers(
    [id],
    name,
    async () => {
      const theSink = sink();
      const mine = (await settleEntries(theSink)).filter((e) => e.requirement === id);
      if (mine.length === 0)
        return notObserved(
          id,
          noEntry ?? `no scenario of this run filed a window for ${id} (see the webhooks tests)`,
          'a run whose webhook scenarios get as far as the call this window follows',
        );
      const judged = await Promise.all(mine.map(async (e) => ({ e, ...(await callsInWindow(theSink, e)) })));
      for (const { e, calls, later } of judged) {
        observe(
          'webhooks.calls-in-window',
          judgedByRunEnd(e)
            ? '{subject}: {hook}_webhook calls within {windowS} s of it being seen done: {calls}{later}'
            : '{subject}: {hook}_webhook calls within {windowS} s of the first: {calls}{later}',
          {
            values: { hook: e.hook },
            particulars: {
              subject: e.subject,
              windowS: e.windowMs / 1000,
              calls: arrivals(e, calls) || 'none',
              later: later.length ? `; after it: ${arrivals(e, later)}` : '',
            },
          },
        );
        if (e.expect === 'ordered') {
          judgeStatusOrder(
            id,
            calls.map((c) => statusOf(c.json)),
            `${e.subject} ${e.hook}_webhook calls up to ${e.windowMs / 1000} s after the done call`,
          );
          continue;
        }
        const judge = judges[e.expect];
        check(id, () => judge(e, judgedByRunEnd(e) ? [...calls, ...later] : calls));
      }
    },
    { timeoutMs: producersBoundMs() + 70_000, requires: reachable },
  );
}
