/** summary.md: a load run's figures and threshold verdicts, readable in a pull request. */
import type { GeneratorReport } from './cpu-share.ts';
import { appliedThresholds, thresholdPlan } from './scenario-slo.ts';
import type { LoadSummary, MetricFigures } from './summary.ts';

export interface RunInfo {
  run: string;
  scenario: string;
  baseUrl: string;
  k6Version: string;
  command: string;
  exitCode: number;
}

function num(value: number | undefined, digits = 2): string {
  return value === undefined ? '–' : Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

function trendRow(m: MetricFigures): string {
  const v = m.values;
  const unit = m.time ? ' ms' : '';
  // k6 reports a trend that never got a sample as all zeros, which reads like a 0 ms latency.
  if (v.count === 0) return `| \`${m.name}\` | – | – | – | – | – | – | 0 |`;
  return `| \`${m.name}\` | ${num(v.min)}${unit} | ${num(v.med)}${unit} | ${num(v['p(90)'])}${unit} | ${num(v['p(95)'])}${unit} | ${num(v['p(99)'])}${unit} | ${num(v.max)}${unit} | ${num(v.count, 0)} |`;
}

interface WarmUpBlock {
  kind?: string;
  takes?: number;
  failed?: number;
  ms?: number;
  connections?: number;
  takesPerConnection?: number;
  modes?: string[];
}

/** One line on the warm-up phase (setup()): how long it took and what it ran; its samples are in no figure. */
export function warmUpLine(raw: unknown): string {
  const w = raw as WarmUpBlock | undefined;
  if (!w || typeof w.ms !== 'number') return '';
  const failed = w.failed ? `, ${w.failed} failed` : '';
  return (
    `- Warm-up (kept out of every figure and threshold): ${(w.ms / 1000).toFixed(1)} s, ${w.takes ?? 0} takes` +
    `${failed} (${w.takesPerConnection ?? '?'} per mode per connection, ${w.connections ?? '?'} connections, ` +
    `${(w.modes ?? []).join(', ')})`
  );
}

/** One line on the voice the run spoke with (load/lib/speak.ts): runs to compare should share it. */
export function voiceLine(raw: unknown): string {
  const v = raw as { id?: unknown; source?: unknown } | undefined;
  if (typeof v?.id !== 'string') return '';
  const how =
    v.source === 'given' ? 'given as VOICE_ID' : 'made for this run; --env VOICE_ID=<id> reuses one';
  return `- Voice: ${v.id} (${how})`;
}

interface RampStep {
  rate: number;
  p50_ms?: number | null;
  p95_ms: number | null;
  p99_ms?: number | null;
  samples: number;
  error_rate?: number | null;
  achieved_rate?: number | null;
}

interface RampBlock {
  limit_ms: number;
  sustained_rate?: number;
  crossing_rate: number | null;
  steps: RampStep[];
}

function rampSection(ramp: RampBlock, latencyJudged: boolean): string[] {
  const pct = (v: number | null | undefined) =>
    v === null || v === undefined ? '–' : `${(v * 100).toFixed(2)} %`;
  return [
    '## Ramp',
    '',
    `p95 time to first playable audio crosses ${ramp.limit_ms} ms at: **${ramp.crossing_rate === null ? 'no step (limit never crossed)' : `${ramp.crossing_rate} takes/s`}**` +
      (ramp.sustained_rate === undefined
        ? ''
        : `; judged at ${ramp.sustained_rate} takes/s (${latencyJudged ? 'latency and errors' : 'errors and playable audio; the crossing is reported, not judged'}: Thresholds below)`),
    '',
    '| offered (takes/s) | achieved (takes/s) | p50 | p95 | p99 | errors | samples |',
    '|---|---|---|---|---|---|---|',
    ...ramp.steps.map(
      (s) =>
        `| ${s.rate} | ${num(s.achieved_rate ?? undefined, 1)} | ${num(s.p50_ms ?? undefined)} ms | ${num(s.p95_ms ?? undefined)} ms | ${num(s.p99_ms ?? undefined)} ms | ${pct(s.error_rate)} | ${s.samples} |`,
    ),
    '',
  ];
}

/** The load generator's own CPU: per step (ramp) or over the measured phase, and its warnings. */
export function generatorSection(g: GeneratorReport | undefined): string[] {
  if (!g) return [];
  const pct = (v: number | undefined) => (v === undefined ? '–' : `${(v * 100).toFixed(1)} %`);
  const lines = [
    '## Load generator (k6) CPU',
    '',
    `k6's CPU time and its share of the machine (${g.cores} cores; 100 % = every core busy with k6 alone), ` +
      `sampled every ${g.sampleIntervalMs} ms from /proc; warning above ${(g.warnAbove * 100).toFixed(0)} %.`,
    '',
  ];
  if (g.unavailable) return [...lines, `Not measured: ${g.unavailable}.`, ''];
  lines.push(
    '| interval | k6 CPU s | k6 share of the machine | machine busy (all processes) |',
    '|---|---|---|---|',
  );
  for (const i of g.intervals) {
    lines.push(`| ${i.label} | ${num(i.cpuSeconds)} | ${pct(i.share)} | ${pct(i.machineBusy)} |`);
  }
  if (g.total) {
    lines.push(
      `| whole k6 run (setup and warm-up included) | ${num(g.total.cpuSeconds)} | ${pct(g.total.share)} | ${pct(g.total.machineBusy)} |`,
    );
  }
  lines.push('');
  for (const w of g.warnings) lines.push(`**Warning:** ${w}.`, '');
  return lines;
}

export function renderSummaryMarkdown(summary: LoadSummary, info: RunInfo): string {
  const speak = Object.values(summary.metrics)
    .filter((m) => m.name.startsWith('speak_'))
    .sort((a, b) => a.name.localeCompare(b.name));
  const trends = speak.filter((m) => m.type === 'trend');
  const counters = speak.filter((m) => m.type === 'counter');
  const rates = speak.filter((m) => m.type === 'rate');
  const applied = appliedThresholds(summary);
  const plan = thresholdPlan(summary);
  const failed = applied.filter((t) => !t.ok);
  const lines = [
    `# Load run ${info.run}: ${info.scenario}`,
    '',
    `- Verdict: **${info.exitCode === 0 ? 'thresholds hold' : info.exitCode === 99 ? 'THRESHOLDS FAILED' : `k6 exited with ${info.exitCode}`}**`,
    `- Target: ${info.baseUrl}`,
    `- k6: ${info.k6Version}`,
    `- Command: \`${info.command}\``,
    summary.testRunDurationMs === undefined
      ? ''
      : `- Test run duration: ${(summary.testRunDurationMs / 1000).toFixed(1)} s`,
    warmUpLine(summary.extra.warmup),
    voiceLine(summary.extra.voice),
    '',
  ];
  const times = trends.filter((m) => m.time);
  const ratios = trends.filter((m) => !m.time);
  const header = [
    '| metric | min | p50 | p90 | p95 | p99 | max | samples |',
    '|---|---|---|---|---|---|---|---|',
  ];
  if (times.length) lines.push('## Latencies', '', ...header, ...times.map(trendRow), '');
  if (ratios.length) {
    lines.push(
      '## Real-time factors',
      '',
      'Audio seconds per wall second (below 1 a listener waits): `*_rtf` per take stream, ' +
        '`speak_ws_min_cum_rtf` the lowest buffered-audio / played-time ratio of a take (load/lib/stream-figures.ts).',
      '',
      ...header,
      ...ratios.map(trendRow),
      '',
    );
  }
  if (counters.length) {
    lines.push('## Counts', '', '| metric | total | per second |', '|---|---|---|');
    lines.push(
      ...counters.map((m) => `| \`${m.name}\` | ${num(m.values.count)} | ${num(m.values.rate, 3)} |`),
      '',
    );
  }
  if (rates.length) {
    lines.push('## Error and underrun rates', '', '| metric | rate | failed | total |', '|---|---|---|---|');
    lines.push(
      ...rates.map(
        (m) =>
          `| \`${m.name}\` | ${((m.values.rate ?? 0) * 100).toFixed(2)} % | ${num(m.values.passes, 0)} | ${num((m.values.passes ?? 0) + (m.values.fails ?? 0), 0)} |`,
      ),
      '',
    );
  }
  const ramp = summary.extra.ramp as RampBlock | undefined;
  if (ramp)
    lines.push(
      ...rampSection(
        ramp,
        applied.some((t) => t.metric.startsWith('speak_ramp_ttfc')),
      ),
    );
  lines.push(...generatorSection(summary.extra.generator as GeneratorReport | undefined));
  lines.push('## Thresholds', '');
  if (plan) {
    lines.push(
      `Latency thresholds: ${plan.latency}.`,
      '',
      `Which applied and where each came from (the reference's tuned limits only on the embedded or container stack; ${plan.slo ? `the SLO \`${plan.slo.text}\` from ${plan.slo.source}` : 'no SLO given'}):`,
      '',
    );
  }
  lines.push('| metric | threshold | source | result |', '|---|---|---|---|');
  lines.push(
    ...applied.map(
      (t) => `| \`${t.metric}\` | \`${t.expression}\` | ${t.source} | ${t.ok ? 'pass' : '**FAIL**'} |`,
    ),
    '',
  );
  if (failed.length) lines.push(`${failed.length} threshold(s) failed.`, '');
  return `${lines.filter((l, i, all) => !(l === '' && all[i - 1] === '')).join('\n')}\n`;
}
