/**
 * What a failing request touches, and how a reproduction makes it again: the run deletes its voices
 * and takes at the end (unless --keep), so a reproduction that reused their ids would only answer
 * 404. Each id the failing request uses is traced in the test's evidence to the request that created
 * it (a POST whose answer carried the id), or, when the evidence holds no such request (the run's
 * shared voice is made before any test), to an answer describing it, from which the spec's generate
 * request is made (spec: VoiceGenerate, TakeGenerate).
 */
import type { EvidenceEntry } from '../evidence/evidence.ts';
import { REDACTED } from '../evidence/redact.ts';

/** An id field of the spec's items, and the variable prefix of an id made afresh. */
const ID_FIELDS: Record<string, string> = { voice_id: 'VOICE', take_id: 'TAKE' };
const CUT = /… \(\d+ bytes in all\)$/;

/** `"field":"value"` pairs of a JSON text, even a cut one. */
function stringFields(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  // No control character in a value: JSON has none raw in a string, and a value with one (a broken
  // or hostile server's) is never an id the reproduction writes into its script.
  for (const m of text.matchAll(/"([A-Za-z0-9_]+)"\s*:\s*"((?:[^"\\\p{Cc}]|\\.)*)"/gu))
    out.push([m[1]!, m[2]!]);
  return out;
}

function fieldOf(text: string, field: string): string | undefined {
  return stringFields(text).find(([k]) => k === field)?.[1];
}

function ok(e: EvidenceEntry): boolean {
  return e.status !== null && e.status >= 200 && e.status < 300;
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}

/** A request the reproduction sends to make an item again. */
export interface Recreation {
  id: string;
  /** voice_id or take_id: the answer's field the new id is read from. */
  field: string;
  /** The shell variable holding the new id. */
  name: string;
  /** The creating request, as the evidence holds it or as the spec's generate request. */
  request: Pick<EvidenceEntry, 'method' | 'url' | 'requestHeaders' | 'requestBody' | 'account'>;
  /** GET URL of the item (with the old id), polled until ready when `waitReady`. */
  itemUrl: string;
  waitReady: boolean;
  /** Why the request differs from the run's (a cut text), if it does. */
  note?: string;
}

/** How the reproduction stands for each id the failing request uses. */
export interface ItemPlan {
  /** In creation order: an item's dependencies (a take's voice) first. */
  recreations: Recreation[];
  /** Ids that could not be made again: the failing request uses them as they were. */
  missing: string[];
}

/** Where the evidence of an item may be: the test's own exchanges, then the whole run's. */
export interface ItemSources {
  /** The test's exchanges before the replayed ones (their timeline: what the run saw ready). */
  before: readonly EvidenceEntry[];
  /** The exchanges the reproduction replays. */
  replayed: readonly EvidenceEntry[];
  /** Every test's exchanges: a scenario shared by tests records its exchanges with one of them only. */
  run?: readonly EvidenceEntry[];
}

/** The spec's item ids in `text`'s item paths (/v1/speak/voices/{id}, /v1/speak/takes/{id}). */
function pathIds(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const m of text.matchAll(/\/v1\/speak\/(voices|takes)\/([^/?#"\s\p{Cc}]+)/gu))
    if (m[2] !== 'generate') out.push([m[2]!, m[1] === 'voices' ? 'voice_id' : 'take_id']);
  return out;
}

/**
 * The items the replayed exchanges use and how to make each again: ids of the spec's items that
 * answers showed (`voice_id`, `take_id`) or that stand in an item path.
 */
export function planItems(sources: ItemSources): ItemPlan {
  const { before, replayed } = sources;
  const known = new Map<string, string>(); // id → field
  const learn = (text: string) => {
    for (const [k, v] of stringFields(text))
      if (k in ID_FIELDS && v.length >= 4 && !known.has(v)) known.set(v, k);
    for (const [id, field] of pathIds(text)) if (!known.has(id)) known.set(id, field);
  };
  for (const e of [...before, ...replayed]) learn(`${e.url} ${e.requestBody ?? ''} ${e.body}`);
  const plan: ItemPlan = { recreations: [], missing: [] };
  const counters: Record<string, number> = {};
  const visit = (text: string, asDependency: boolean) => {
    for (const [id, field] of [...known]) {
      if (!text.includes(id)) continue;
      if (plan.recreations.some((r) => r.id === id) || plan.missing.includes(id)) continue;
      const made = recreationOf(sources, id, field, asDependency);
      if (!made) {
        plan.missing.push(id);
        continue;
      }
      // Its own ids (a take's voice) first.
      const uses = `${made.request.url} ${made.request.requestBody ?? ''}`;
      learn(uses);
      visit(uses, true);
      counters[field] = (counters[field] ?? 0) + 1;
      plan.recreations.push({ ...made, name: `${ID_FIELDS[field]}_${counters[field]}` });
    }
  };
  visit(replayed.map((e) => `${e.url} ${e.requestBody ?? ''}`).join(' '), false);
  return plan;
}

function recreationOf(
  sources: ItemSources,
  id: string,
  field: string,
  asDependency: boolean,
): Omit<Recreation, 'name'> | undefined {
  const describes = (e: EvidenceEntry) =>
    ok(e) && e.method === 'GET' && pathOf(e.url).endsWith(`/${id}`) && fieldOf(e.body, field) === id;
  const creates = (e: EvidenceEntry) =>
    e.method === 'POST' &&
    ok(e) &&
    fieldOf(e.body, field) === id &&
    !`${e.url} ${e.requestBody ?? ''}`.includes(id);
  const { before } = sources;
  // The whole run's exchanges only when the test's own hold nothing of the item.
  const run = (sources.run ?? []).filter((e) => e.body.includes(id));
  const describedBy = before.filter(describes);
  // A voice that a take is made with must be ready first; an item the run saw ready before the
  // failing request (an mp3 is only there once the take is ready) is waited for too.
  const waitReady = asDependency || describedBy.some((e) => fieldOf(e.body, 'status') === 'ready');
  const creator = [...before].reverse().find(creates) ?? run.find(creates);
  const itemUrl =
    [...describedBy, ...run.filter(describes)][0]?.url ??
    (creator ? creator.url.replace(/\/generate$/, `/${encodeURIComponent(id)}`) : '');
  if (creator && creator.requestBody !== undefined && !/^<\d+ bytes of /.test(creator.requestBody)) {
    const whole = !CUT.test(creator.requestBody);
    if (whole)
      return {
        id,
        field,
        request: creator,
        itemUrl: itemUrl || creator.url,
        waitReady,
      };
  }
  // From the spec's generate request and what the evidence says of the item (its owner's view,
  // or the answer that should not have been given: a leak describes the item too).
  const description =
    [...describedBy].reverse()[0] ??
    sources.replayed.find(describes) ??
    run.find((e) => describes(e) && e.account !== 'second') ??
    run.find(describes);
  const source = creator ?? description;
  if (!source) return undefined;
  // The first of each field: an answer's nested objects (a voice's example take) come later.
  const fields = new Map<string, string>();
  for (const [k, v] of stringFields(`${creator?.requestBody ?? ''} ${description?.body ?? ''}`))
    if (!fields.has(k)) fields.set(k, v);
  const openText = /"text"\s*:\s*"((?:[^"\\]|\\.)*)/.exec((creator?.requestBody ?? '').replace(CUT, ''))?.[1];
  if (field === 'take_id' && !fields.has('text') && openText) fields.set('text', openText.replace(/\\$/, ''));
  const base = source.url.replace(/\/v1\/speak\/.*$/, '');
  const kind = field === 'voice_id' ? 'voices' : 'takes';
  const wanted = field === 'voice_id' ? ['name', 'gender', 'model'] : ['voice_id', 'text'];
  if (wanted.some((k) => !fields.has(k))) return undefined;
  const body = `{${wanted.map((k) => `"${k}":"${fields.get(k)}"`).join(',')}}`;
  const cutText = field === 'take_id' && creator?.requestBody !== undefined && CUT.test(creator.requestBody);
  return {
    id,
    field,
    request: {
      method: 'POST',
      url: `${base}/v1/speak/${kind}/generate`,
      requestHeaders: {
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${REDACTED}`,
      },
      requestBody: body,
      // The items are the run's own (account A) unless the evidence shows B making it.
      ...(creator?.account ? { account: creator.account } : {}),
    },
    itemUrl: itemUrl || `${base}/v1/speak/${kind}/${encodeURIComponent(id)}`,
    waitReady,
    ...(cutText
      ? {
          note: `the take's text is cut in the evidence: the reproduction makes ${id} again with the part it holds.`,
        }
      : {}),
  };
}
