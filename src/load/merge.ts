/**
 * One exact summary from the raw samples of several k6 processes (execution segments of one test,
 * run here with `--segments N` or as k6-operator runner pods). Percentiles of several summaries
 * cannot be combined; the raw samples can: every Trend's percentiles are recomputed over all samples
 * with k6's own formula (linear interpolation between the closest ranks, metrics/sink.go), counters
 * add up, rates add passes and fails. The result has the format of a single run's summary.json
 * (k6's summary data plus the `speakcheck` block), so summary.md and `perf compare` read it as is.
 *
 * A segment is a directory holding `samples.json` or `samples.json.gz` (k6 `--out json=...`) and,
 * normally, the `summary.json` its handleSummary wrote: that one names the scenario and the
 * thresholds, which are evaluated again on the merged figures.
 */
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { SpeakcheckError } from '../errors.ts';
import type { MetricType } from './summary.ts';

export const SAMPLE_FILES = ['samples.json.gz', 'samples.json'];

/** The Trend statistics every scenario reports (load/lib/config.ts SUMMARY_TREND_STATS). */
const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'];

export class MergeError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_LOAD_MERGE';
  override name = 'MergeError';
}

interface MetricSamples {
  type: MetricType;
  contains: string;
  /** Values with their tags (tags are needed for sub-metrics such as `{mode:chunks}`). */
  points: { value: number; tags: Record<string, string> }[];
}

/** k6's Trend percentile: linear interpolation at index p × (n − 1) of the sorted values. */
export function k6Percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  if (sorted.length === 1) return sorted[0]!;
  const i = p * (sorted.length - 1);
  const lo = sorted[Math.floor(i)]!;
  const hi = sorted[Math.ceil(i)]!;
  return lo + (hi - lo) * (i - Math.floor(i));
}

/** The summary values k6 reports for a metric of `type` over `values` (durationMs: the test run's length). */
export function summaryValues(
  type: MetricType,
  values: number[],
  durationMs: number,
): Record<string, number> {
  switch (type) {
    case 'trend': {
      const sorted = [...values].sort((a, b) => a - b);
      const out: Record<string, number> = {};
      for (const stat of TREND_STATS) {
        if (stat === 'count') out.count = sorted.length;
        else if (stat === 'avg')
          out.avg = sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : 0;
        else if (stat === 'min') out.min = sorted[0] ?? 0;
        else if (stat === 'max') out.max = sorted.at(-1) ?? 0;
        else if (stat === 'med') out.med = k6Percentile(sorted, 0.5);
        else out[stat] = k6Percentile(sorted, Number(/^p\((.+)\)$/.exec(stat)![1]) / 100);
      }
      return out;
    }
    case 'counter': {
      const count = values.reduce((a, b) => a + b, 0);
      return { count, rate: durationMs > 0 ? count / (durationMs / 1000) : 0 };
    }
    case 'rate': {
      const passes = values.filter((v) => v !== 0).length;
      const fails = values.length - passes;
      return { rate: values.length ? passes / values.length : 0, passes, fails };
    }
    case 'gauge':
      // reduce, not Math.min(...values): a long run's gauge can outgrow the argument limit.
      return values.length
        ? {
            value: values.at(-1)!,
            min: values.reduce((a, b) => Math.min(a, b)),
            max: values.reduce((a, b) => Math.max(a, b)),
          }
        : { value: 0, min: 0, max: 0 };
  }
}

/** `speak_ws_ttfc{mode:chunks,rate:4}` → the base name and the tag selector. */
export function parseMetricName(name: string): { base: string; tags: Record<string, string> } {
  const m = /^([^{]+)\{(.*)\}$/.exec(name);
  if (!m) return { base: name, tags: {} };
  const tags: Record<string, string> = {};
  for (const pair of m[2]!.split(',')) {
    const at = pair.indexOf(':');
    if (at > 0) tags[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return { base: m[1]!, tags };
}

/** Reads one k6 JSON output file (gzip when it ends in .gz) into `into`. */
export async function readSamples(path: string, into: Map<string, MetricSamples>): Promise<void> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of lines) {
    if (!line) continue;
    let entry: {
      type?: string;
      metric?: string;
      data?: { type?: string; contains?: string; value?: number; tags?: Record<string, string> };
    };
    try {
      entry = JSON.parse(line);
    } catch {
      throw new MergeError(`${path}: a line is not JSON (is it k6 --out json output?)`);
    }
    if (!entry.metric || !entry.data) continue;
    if (entry.type === 'Metric') {
      if (!into.has(entry.metric))
        into.set(entry.metric, {
          type: entry.data.type as MetricType,
          contains: entry.data.contains ?? 'default',
          points: [],
        });
    } else if (entry.type === 'Point' && typeof entry.data.value === 'number') {
      const m = into.get(entry.metric);
      if (!m) throw new MergeError(`${path}: a sample of ${entry.metric} comes before its Metric line`);
      m.points.push({ value: entry.data.value, tags: entry.data.tags ?? {} });
    }
  }
}

/** Every directory at or below `dir` that holds a samples file: the segments. */
export function findSegments(dir: string): string[] {
  if (!existsSync(dir)) throw new MergeError(`${dir}: no such directory`);
  const out: string[] = [];
  const walk = (d: string) => {
    const entries = readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    if (entries.some((e) => e.isFile() && SAMPLE_FILES.includes(e.name))) out.push(d);
    for (const e of entries) if (e.isDirectory()) walk(join(d, e.name));
  };
  walk(dir);
  return out;
}

interface SegmentSummary {
  metrics?: Record<string, { thresholds?: Record<string, unknown> }>;
  state?: { testRunDurationMs?: number };
  speakcheck?: Record<string, unknown>;
}

/** Evaluates a k6 threshold expression such as `p(95)<50`, `med<=15`, `rate<0.01`, `count>0`. */
export function evaluateThreshold(expression: string, values: Record<string, number>): boolean {
  const m = /^\s*([a-z]+(?:\([\d.]+\))?)\s*(<=|>=|==|===|!=|<|>)\s*(-?[\d.]+)\s*$/.exec(expression);
  if (!m) throw new MergeError(`threshold "${expression}": not of the form stat<op>number`);
  const stat = m[1] === 'p(50)' ? 'med' : m[1]!;
  const v = values[stat];
  if (v === undefined) throw new MergeError(`threshold "${expression}": the merged metric has no ${stat}`);
  const limit = Number(m[3]);
  switch (m[2]) {
    case '<':
      return v < limit;
    case '<=':
      return v <= limit;
    case '>':
      return v > limit;
    case '>=':
      return v >= limit;
    case '!=':
      return v !== limit;
    default:
      return v === limit;
  }
}

export interface MergedSummary {
  /** k6 summary data + `speakcheck` (scenario, segments, and the scenario's own block). */
  data: Record<string, unknown>;
  segments: string[];
  failedThresholds: number;
}

/** Merges the segments found below `dirs` into one summary (see the file comment). */
export async function mergeSegments(dirs: string[]): Promise<MergedSummary> {
  const segments = dirs.flatMap(findSegments);
  if (segments.length === 0)
    throw new MergeError(`no samples.json(.gz) below ${dirs.join(', ')}: nothing to merge`);
  const samples = new Map<string, MetricSamples>();
  const summaries: SegmentSummary[] = [];
  for (const dir of segments) {
    const file = SAMPLE_FILES.map((f) => join(dir, f)).find(existsSync)!;
    await readSamples(file, samples);
    const summaryPath = join(dir, 'summary.json');
    if (existsSync(summaryPath))
      summaries.push(JSON.parse(readFileSync(summaryPath, 'utf8')) as SegmentSummary);
  }
  // The segments ran at the same time: the test lasted as long as the longest.
  const durationMs = Math.max(0, ...summaries.map((s) => s.state?.testRunDurationMs ?? 0));
  // Sub-metrics exist where a threshold names them; every threshold of any segment is kept.
  const thresholds = new Map<string, Set<string>>();
  for (const s of summaries) {
    for (const [name, m] of Object.entries(s.metrics ?? {})) {
      const set = thresholds.get(name) ?? new Set<string>();
      for (const expr of Object.keys(m.thresholds ?? {})) set.add(expr);
      thresholds.set(name, set);
    }
  }
  const names = new Set([...samples.keys(), ...[...thresholds.keys()].filter((n) => n.includes('{'))]);
  const metrics: Record<string, unknown> = {};
  let failedThresholds = 0;
  for (const name of [...names].sort()) {
    const { base, tags } = parseMetricName(name);
    const source = samples.get(base);
    if (!source) continue;
    const values = source.points
      .filter((p) => Object.entries(tags).every(([k, v]) => p.tags[k] === v))
      .map((p) => p.value);
    const summaryValuesOut = summaryValues(source.type, values, durationMs);
    const metric: Record<string, unknown> = {
      type: source.type,
      contains: source.contains,
      values: summaryValuesOut,
    };
    const exprs = thresholds.get(name);
    if (exprs?.size) {
      const results: Record<string, { ok: boolean }> = {};
      for (const expr of exprs) {
        const ok = evaluateThreshold(expr, summaryValuesOut);
        if (!ok) failedThresholds += 1;
        results[expr] = { ok };
      }
      metric.thresholds = results;
    }
    metrics[name] = metric;
  }
  const first = summaries[0]?.speakcheck ?? {};
  const speakcheck: Record<string, unknown> = {
    ...first,
    scenario: typeof first.scenario === 'string' ? first.scenario : 'unknown',
    merged: { segments: segments.length, sources: segments },
  };
  if (first.ramp) speakcheck.ramp = mergedRamp(first.ramp as RampBlock, metrics);
  return {
    data: { metrics, state: { testRunDurationMs: durationMs }, speakcheck },
    segments,
    failedThresholds,
  };
}

interface RampBlock {
  limit_ms: number;
  step_s: number;
  steps: { rate: number }[];
}

/** The ramp's per-step p95 and crossing rate, recomputed from the merged sub-metrics. */
function mergedRamp(ramp: RampBlock, metrics: Record<string, unknown>): Record<string, unknown> {
  const steps = ramp.steps.map(({ rate }) => {
    const values = (
      metrics[`speak_ramp_ttfc{rate:${rate}}`] as { values?: Record<string, number> } | undefined
    )?.values;
    return { rate, p95_ms: values?.count ? values['p(95)']! : null, samples: values?.count ?? 0 };
  });
  const crossing = steps.find((s) => s.p95_ms !== null && s.p95_ms > ramp.limit_ms);
  return { ...ramp, steps, crossing_rate: crossing ? crossing.rate : null };
}
