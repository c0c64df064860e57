/**
 * An observation is what a test saw of the server, as data (issue 48): a stable key that says what
 * was observed ('lists.page-base'), the values the server chose (a page base, a status, a header:
 * what `compare` diffs between runs), and the run's own particulars (ids, origins, timings, sizes,
 * counts, seeds: shown to people, never compared). What one run merely happened to catch (which
 * in-progress status a poll saw, which of two timings was shorter, the harness trying again) is
 * `caught`: shown, never compared.
 *
 * The sentence people read is written here, once, from the template and the data (`{name}` is the
 * value or particular of that name; braces around any other word stay as they are, e.g.
 * "/v1/speak/voices/{id}"). Nothing reads a sentence back: compare diffs keys and values.
 */

/** A value or particular as shown: what JSON keeps exactly. */
export type Shown = string | number | boolean | null;
export type ObservedData = Readonly<Record<string, Shown>>;

export interface Observation {
  /** What was observed, the same in every run of any server: 'lists.page-base'. */
  key: string;
  /** The sentence for people, written by `observation` from the template and the data. */
  text: string;
  /** What the server chose: compared between runs. */
  values?: ObservedData;
  /** The run's own (ids, origins, timings, sizes, counts, seeds): shown, never compared. */
  particulars?: ObservedData;
  /** What this run happened to catch (a race, a poll's snapshot, a retry): shown, never compared. */
  caught?: true;
}

export interface ObservationData {
  values?: ObservedData;
  particulars?: ObservedData;
  caught?: boolean;
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** The observation `key`, its sentence written from `template` and the data. */
export function observation(key: string, template: string, data: ObservationData = {}): Observation {
  const all: Record<string, Shown> = { ...data.particulars, ...data.values };
  const text = template.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(all, name) ? String(all[name]) : whole,
  );
  return {
    key,
    text,
    ...(data.values && Object.keys(data.values).length > 0 ? { values: data.values } : {}),
    ...(data.particulars && Object.keys(data.particulars).length > 0
      ? { particulars: data.particulars }
      : {}),
    ...(data.caught ? { caught: true as const } : {}),
  };
}

/**
 * What compare diffs of one observation: its key and values, one line (undefined: not compared, a
 * thing one run caught). Values in key order, so the line does not depend on how they were written.
 */
export function comparedForm(o: Observation): string | undefined {
  if (o.caught) return undefined;
  const values = Object.keys(o.values ?? {})
    .sort()
    .map((name) => `${name}=${JSON.stringify(o.values![name])}`);
  return values.length > 0 ? `${o.key}: ${values.join(', ')}` : o.key;
}

/** The sentences of `observations`, for people. */
export function sentencesOf(observations: readonly Observation[]): string[] {
  return observations.map((o) => o.text);
}
