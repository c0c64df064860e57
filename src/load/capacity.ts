/**
 * `speakcheck load capacity`: the highest load that holds an SLO. One target (the embedded stack
 * started once, or --base-url), then one short k6 run per step (load/scenarios/capacity-step.ts):
 * step up until the SLO breaks, bisect between the last good and the first bad load
 * (capacity-search.ts). Each step is held long enough for its p95 to rest on at least
 * `minSamples` takes. Writes <run>/summary.json (scenario `capacity`, read by `perf compare`),
 * summary.md, summary.html and curve.svg; each step's own k6 summary stays in step-NN-<load>/.
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpSpeakClient } from '../client/speak-client.ts';
import { EXIT } from '../exit-codes.ts';
import { REPO_ROOT } from '../stack/embedded.ts';
import {
  type CapacityDimension,
  type CapacityMode,
  type CapacityReport,
  type CapacityStep,
  renderCapacityHtml,
  renderCapacityMarkdown,
  renderCurveSvg,
  renderRatesSvg,
} from './capacity-report.ts';
import { type SearchOptions, type StepOutcome, searchCapacity } from './capacity-search.ts';
import { CpuSampler, GENERATOR_SHARE_WARN, type GeneratorReport, generatorReport } from './cpu-share.ts';
import { k6Version } from './k6-binary.ts';
import { runId, runK6 } from './run-load.ts';
import {
  DEFAULT_SLO,
  FIGURE_METRICS,
  judgeSlo,
  parseSlo,
  type Slo,
  type SloFigure,
  type StepFigures,
} from './slo.ts';
import { type LoadSummary, readSummaryFile } from './summary.ts';
import { type TargetCredentials, withLoadTarget } from './target.ts';

export interface CapacityOptions extends TargetCredentials {
  mode: CapacityMode;
  over: CapacityDimension;
  /** Default: DEFAULT_SLO for the mode. */
  slo?: string;
  start?: number;
  max?: number;
  /** Seconds each step is held at least. */
  stepS?: number;
  /** Each step is held until this many takes are expected (rate × seconds), at most 30 s. */
  minSamples?: number;
  budgetS?: number;
  precision?: number;
  /** Re-run breaking steps and the last good one (capacity-search.ts); default true. */
  confirm?: boolean;
  /** Extra `-e` knobs for every step (TEXTS, POLL_MS, ...). */
  env?: Record<string, string>;
  outDir?: string;
  maxGeneratorShare?: number;
  log?: (line: string) => void;
}

export interface CapacityResult {
  exitCode: number;
  runDir: string;
  report?: CapacityReport;
  reason?: string;
}

const STEP_MAX_S = 30;

/** Defaults per mode and dimension: where the 2-worker reference stack's range lies (load/README.md). */
export function searchDefaults(mode: CapacityMode, over: CapacityDimension) {
  if (over === 'streams') return { start: 2, max: 256, granularity: 1 };
  // Start at 8 takes/s: below it a step needs > 12 s for its minimum samples, and the reference
  // holds 30-50; a server that breaks at 8 is searched downwards.
  return mode === 'rest'
    ? { start: 8, max: 256, granularity: 0.5 }
    : { start: 8, max: 512, granularity: 0.5 };
}

/** The step's hold time: at least stepS, long enough for minSamples takes at this rate, at most 30 s. */
export function stepSeconds(
  over: CapacityDimension,
  load: number,
  stepS: number,
  minSamples: number,
): number {
  if (over === 'streams') return stepS;
  return Math.min(STEP_MAX_S, Math.max(stepS, Math.ceil(minSamples / load)));
}

function values(summary: LoadSummary, name: string): Record<string, number> | undefined {
  return summary.metrics[name]?.values;
}

/** The step's figures as the SLO reads them, from its k6 summary. */
export function stepFigures(
  summary: LoadSummary,
  mode: CapacityMode,
  offered: number,
  durationS: number,
): StepFigures {
  const latency: StepFigures['latency'] = {};
  const samples: StepFigures['samples'] = {};
  for (const [figure, metric] of Object.entries(FIGURE_METRICS) as Array<[SloFigure, string]>) {
    const v = values(summary, metric);
    if (!v?.count) continue;
    latency[figure] = { 50: v.med!, 90: v['p(90)']!, 95: v['p(95)']!, 99: v['p(99)']! };
    samples[figure] = v.count;
  }
  const errors = values(summary, mode === 'rest' ? 'speak_rest_errors' : 'speak_ws_errors');
  const ended = (errors?.passes ?? 0) + (errors?.fails ?? 0);
  return {
    latency,
    samples,
    errorRate: ended > 0 ? (errors?.rate ?? 0) : 1,
    offeredRate: offered,
    achievedRate: ended / durationS,
  };
}

export async function runCapacity(o: CapacityOptions): Promise<CapacityResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const runDir = o.outDir ?? join(REPO_ROOT, 'reports', 'load', runId(`capacity-${o.mode}-${o.over}`));
  const slo: Slo = parseSlo(o.slo ?? (o.mode === 'rest' ? DEFAULT_SLO.rest : DEFAULT_SLO.websocket));
  const mainTerm = slo.terms.find((t) => t.kind === 'latency');
  const figure: SloFigure = mainTerm?.kind === 'latency' ? mainTerm.figure : 'first_playable';
  const defaults = searchDefaults(o.mode, o.over);
  const stepS = o.stepS ?? 8;
  // 100 takes: a p95 then rests on the 5 slowest, not on 1-3 (near the knee steps hold 250-400).
  const minSamples = o.minSamples ?? 100;
  const budgetMs = (o.budgetS ?? 180) * 1000;
  const search: SearchOptions = {
    start: o.start ?? defaults.start,
    min: defaults.granularity,
    max: o.max ?? defaults.max,
    growth: 2,
    precision: o.precision ?? 0.1,
    granularity: defaults.granularity,
    budgetMs,
    maxSteps: 20,
    confirm: o.confirm ?? true,
  };
  const script = join(REPO_ROOT, 'load', 'scenarios', 'capacity-step.ts');
  return withLoadTarget(o, runDir, log, async ({ k6, target, stack, secrets, vars: targetVars }) => {
    mkdirSync(runDir, { recursive: true });
    // Every step speaks with one voice: what a take costs can depend on the voice (the reference's
    // espeak variants once differed by 2×), and steps that each made their own measured different
    // workloads. The first step makes it and keeps it; VOICE_ID (--env) names one to use instead.
    const given = o.env?.VOICE_ID;
    let voice: CapacityReport['voice'] = given ? { id: given, source: 'given' } : undefined;
    const steps: CapacityStep[] = [];
    const warnings: string[] = [];
    const measure = async (load: number): Promise<StepOutcome<CapacityStep>> => {
      const startedAt = Date.now();
      const index = steps.length + 1;
      const durationS = stepSeconds(o.over, load, stepS, minSamples);
      const dir = join(runDir, `step-${String(index).padStart(2, '0')}-${load}`);
      mkdirSync(dir, { recursive: true });
      const vars: Record<string, string> = {
        TEXTS: 'paragraph',
        ...(o.env ?? {}),
        ...targetVars,
        SUMMARY_DIR: dir,
        MODE: o.mode,
        LOAD: o.over,
        STEP_S: String(durationS),
        // The stack is warm after the first step: later steps warm only k6's new connections.
        WARMUP_TAKES: o.env?.WARMUP_TAKES ?? (index === 1 ? '5' : '2'),
        ...(o.over === 'rate' ? { RATE: String(load) } : { STREAMS: String(load) }),
        ...(voice ? { VOICE_ID: voice.id } : { KEEP_VOICE: '1' }),
      };
      const sampler = new CpuSampler();
      log(`step ${index}: ${load} ${unitOf(o)} for ${durationS} s`);
      const code = await runK6(k6, script, vars, secrets, {
        timeoutMs: (durationS + 120) * 1000,
        tag: `capacity-step-${index}`,
        log: (line) => log(`  ${line}`),
        onSpawn: (pid) => sampler.add(pid),
      });
      const samplesCpu = sampler.stop();
      const stepSummary = join(dir, 'summary.json');
      if (!existsSync(stepSummary))
        throw new CapacityStepError(`step ${index} (${load}): k6 exited with ${code} and wrote no summary`);
      // Renamed so `perf compare` on the run directory reads the capacity, not the steps.
      const kept = join(dir, 'step-summary.json');
      renameSync(stepSummary, kept);
      const summary = readSummaryFile(kept);
      voice ??= madeVoice(summary);
      const f = stepFigures(summary, o.mode, o.over === 'rate' ? load : Number.NaN, durationS);
      // Streams: there is no offered rate; "achieved" is judged only for arrival rates.
      const judged =
        o.over === 'streams' ? { ...slo, terms: slo.terms.filter((t) => t.kind !== 'achieved') } : slo;
      const verdict = judgeSlo(judged, f);
      const warm = (summary.extra.warmup as { endedAtMs?: number } | undefined)?.endedAtMs;
      const generator: GeneratorReport = generatorReport(
        samplesCpu,
        warm === undefined
          ? []
          : [{ label: `step ${index} (${load} ${unitOf(o)})`, fromMs: warm, toMs: warm + durationS * 1000 }],
        { warnAbove: o.maxGeneratorShare ?? GENERATOR_SHARE_WARN, available: sampler.available },
      );
      warnings.push(...generator.warnings);
      const share = generator.intervals[0];
      const lat = f.latency[figure];
      const step: CapacityStep = {
        index,
        phase: 'up',
        load,
        holds: verdict.holds,
        broken: verdict.broken,
        durationS,
        figure,
        ...(lat?.[50] === undefined ? {} : { p50Ms: lat[50] }),
        ...(lat?.[95] === undefined ? {} : { p95Ms: lat[95] }),
        ...(lat?.[99] === undefined ? {} : { p99Ms: lat[99] }),
        samples: f.samples[figure] ?? 0,
        errorRate: f.errorRate,
        achievedRate: f.achievedRate,
        ...(share?.share === undefined
          ? {}
          : { generatorShare: share.share, generatorCpuS: share.cpuSeconds, machineBusy: share.machineBusy }),
        elapsedMs: Date.now() - startedAt,
        dir,
      };
      steps.push(step);
      log(
        `step ${index}: ${load} ${unitOf(o)} → ${figure} p95 ${step.p95Ms?.toFixed(0) ?? '–'} ms over ${step.samples} takes, ` +
          `errors ${(f.errorRate * 100).toFixed(1)} %, achieved ${f.achievedRate.toFixed(1)}/s: ${verdict.holds ? 'SLO holds' : `SLO broken (${verdict.broken.join('; ')})`}`,
      );
      return {
        load,
        holds: verdict.holds,
        figures: step,
        elapsedMs: step.elapsedMs,
        // Streams have no offered rate to compare with: no saturation check (capacity-search.ts).
        ...(o.over === 'rate' ? { achieved: f.achievedRate } : {}),
      };
    };
    let result: Awaited<ReturnType<typeof searchCapacity<CapacityStep>>>;
    try {
      result = await searchCapacity(measure, search);
    } catch (err) {
      if (!(err instanceof CapacityStepError)) throw err;
      return { exitCode: EXIT.failed, runDir, reason: err.message };
    } finally {
      if (voice?.source === 'made') await deleteVoice(target, voice.id, log);
    }
    for (const s of result.steps) s.figures.phase = s.phase;
    const { now: _now, ...searchShown } = search;
    const report: CapacityReport = {
      mode: o.mode,
      over: o.over,
      unit: unitOf(o),
      slo: slo.text,
      end: result.end,
      ...(result.capacity === undefined ? {} : { capacity: result.capacity }),
      ...(result.firstBad === undefined ? {} : { firstBad: result.firstBad }),
      bracket: {
        good: steps.find((s) => s.holds && s.load === result.capacity),
        bad: steps.find((s) => !s.holds && s.load === result.firstBad),
      },
      bracketRuns: {
        good: steps.filter((s) => s.load === result.capacity),
        bad: steps.filter((s) => s.load === result.firstBad),
      },
      confirmed: result.confirmed,
      steps,
      search: { ...searchShown, minSamples, stepS },
      elapsedMs: result.elapsedMs,
      budgetMs,
      generatorWarnings: warnings,
      k6Version: k6Version(k6),
      target: stack ? `embedded reference stack (${stack.baseUrl})` : target.baseUrl,
      ...(voice ? { voice } : {}),
    };
    const exitCode = result.end === 'found' || result.end === 'bracketed' ? EXIT.ok : EXIT.failed;
    writeCapacityFiles(runDir, report, exitCode);
    return { exitCode, runDir, report };
  });
}

class CapacityStepError extends Error {}

/** The voice a step made and kept (KEEP_VOICE), from its summary (load/lib/summary.ts). */
function madeVoice(summary: LoadSummary): CapacityReport['voice'] {
  const v = summary.extra.voice as { id?: unknown; source?: unknown } | undefined;
  return typeof v?.id === 'string' && v.source === 'made' ? { id: v.id, source: 'made' } : undefined;
}

/** Deletes the search's own voice at the end (best effort, like a k6 teardown: a failure is logged). */
async function deleteVoice(
  target: TargetCredentials & { baseUrl: string },
  voiceId: string,
  log: (line: string) => void,
): Promise<void> {
  try {
    const client = await HttpSpeakClient.login(
      { baseUrl: target.baseUrl, authUrl: target.authUrl ?? target.baseUrl, requestTimeoutMs: 10_000 },
      { email: target.email, password: target.password, token: target.token },
    );
    const res = await client.delete(`/v1/speak/voices/${encodeURIComponent(voiceId)}`);
    if (res.status >= 300) log(`the search's voice ${voiceId} was not deleted: HTTP ${res.status}`);
  } catch (err) {
    log(`the search's voice ${voiceId} was not deleted: ${(err as Error).message}`);
  }
}

export function unitOf(o: { mode: CapacityMode; over: CapacityDimension }): string {
  return o.over === 'streams' ? 'streams' : 'takes/s';
}

function writeCapacityFiles(runDir: string, report: CapacityReport, exitCode: number): void {
  // A summary.json `perf compare` reads: no k6 metrics, the capacity block.
  const summary = {
    metrics: {},
    speakcheck: { scenario: `capacity-${report.mode}-${report.over}`, capacity: report },
  };
  writeFileSync(join(runDir, 'summary.json'), JSON.stringify(summary, null, 2));
  const svg = renderCurveSvg(report);
  writeFileSync(join(runDir, 'curve.svg'), svg);
  writeFileSync(join(runDir, 'rates.svg'), renderRatesSvg(report));
  writeFileSync(join(runDir, 'summary.md'), renderCapacityMarkdown(report, exitCode));
  writeFileSync(join(runDir, 'summary.html'), renderCapacityHtml(report, svg));
}

/** The capacity block of a summary.json written by `load capacity`, if it is one. */
export function capacityOf(summary: LoadSummary): CapacityReport | undefined {
  const c = summary.extra.capacity as CapacityReport | undefined;
  return c && typeof c === 'object' && Array.isArray(c.steps) ? c : undefined;
}

export function readCapacity(path: string): CapacityReport | undefined {
  return capacityOf(readSummaryFile(path));
}
