/**
 * WEBHOOK-STATUS-ORDERED, judged where status calls arrived (suites/webhooks.spec.ts) and after
 * their late window (suites/webhooks-settled.spec.ts): an order is seen between two calls at least.
 */
import { assertStatusOrder } from '../../src/checks/status.ts';
import { check, notObserved, type RequirementId } from '../../src/harness/index.ts';

/** What would show an order: a take that changes status twice or more while it is made. */
const STATUS_ORDER_REMEDY =
  'a take whose status changes at least twice while it is made (a longer text, or a slower server), each change called';

/**
 * Judges the order of `statuses` (the status calls of `subject`, in arrival order) for `id`. With
 * fewer than two nothing is compared: a check would record the SHOULD as held on no observation,
 * so `id` is not observed, with how many calls came and what would judge it.
 */
export function judgeStatusOrder(
  id: RequirementId,
  statuses: readonly string[],
  subject: string,
  wouldJudge = STATUS_ORDER_REMEDY,
): void {
  if (statuses.length < 2) {
    const came = statuses.length === 0 ? 'no status call' : `one status call (${statuses[0]})`;
    notObserved(id, `${subject}: ${came} arrived; an order needs two`, wouldJudge);
    return;
  }
  check(id, () => assertStatusOrder(statuses, subject));
}
