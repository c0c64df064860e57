/**
 * Benchmark of the main job: `speakcheck run` against the embedded reference stack (stack start
 * included), N times. Per run: wall time, CPU seconds of the whole process tree, the run's phases
 * (stack start, preflight, suites) and each area's time, and the peak resident memory of the tree
 * (CLI, vitest workers, the reference stack, its workers) and of its largest process, sampled from
 * /proc every 100 ms. Besides: one stack start on its own, step by step (the API process's and each
 * worker's start-up line), and the synthesis rate of one and of two espeak threads
 * (reference/bench/synth-bench.ts). Targets: the median run <= 12 s and <= 600 MB; two synthesis
 * threads >= 1.7 x one.
 *
 *   node bin/speakcheck.js bench [--runs 5] [-- extra speakcheck run options]
 */
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { CHILD_MALLOC_ENV } from '../config/child-malloc.mjs';
import { REPO_ROOT, SPEAKCHECK_BIN } from '../stack/embedded.ts';
import { launch, runToEnd, serveReady } from '../stack/launcher.ts';
import { readProcs, tree } from '../stack/process-tree.ts';
import { EMBEDDED_RUN_SERVE_ARGS } from '../stack/target.ts';
import { type CpuBreakdown, TreeCpuSampler } from './cpu-breakdown.ts';

/** Issue 42's targets for the main job on the 2-core machine (figures and what stands in the way: docs/benchmarks.md). */
export const TARGET_WALL_S = 8;
export const TARGET_RSS_MB = 450;
/** Issue 42's target for a whole run against a server with a hosted TTS's latencies (`bench --latitude hosted-latency`). */
export const TARGET_HOSTED_WALL_S = 40;
export const TARGET_SYNTH_SCALING = 1.7;
/** USER_HZ: /proc times are in clock ticks of 1/100 s on Linux. */
const TICKS_PER_S = 100;
const SYNTH_BENCH = join(REPO_ROOT, 'reference', 'bench', 'synth-bench.ts');
/**
 * Node's first --import for the espeak benches (reference/bench/): espeak's V8 flags set before tsx
 * runs anything, as the stack's processes have them from their start (reference/synth/espeak-v8.mjs).
 */
export const ESPEAK_V8_PRELOAD = join(REPO_ROOT, 'reference', 'synth', 'espeak-v8-preload.mjs');

/** Fields of /proc/self/stat after the command name (field 3 of proc(5) is index 0). */
function selfStatFields(): string[] {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  // The name is in parentheses and may contain spaces: split after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Proportional set size: the process's private pages plus its share of pages it shares. */
function pssKb(pid: number): number {
  try {
    return Number(
      /^Pss:\s+(\d+) kB/m.exec(readFileSync(join('/proc', String(pid), 'smaps_rollup'), 'utf8'))?.[1] ?? 0,
    );
  } catch {
    return 0; // ended, or no smaps_rollup (kernel < 4.14)
  }
}

/** CPU seconds of this process's children that have ended (and of theirs, recursively). */
function childrenCpuSeconds(): number {
  const fields = selfStatFields();
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S;
}

export interface BenchResult {
  exitCode: number | null;
  wallS: number;
  /** CPU seconds (user + system) of the whole tree. */
  cpuS: number;
  peakTreeMb: number;
  /** The tree's PSS, taken at each new high of its summed RSS: what it takes from the machine (shared pages such as Node's binary once). */
  peakTreePssMb: number;
  peakSingleMb: number;
  peakProcesses: number;
  /** The run's own phases (`timing:` line): stack start, preflight, suites. */
  phases: Record<string, number>;
  /** Seconds per area (the live summary's per-area lines; the last file of the area). */
  areas: Record<string, number>;
  /** The tree at its peak: RSS and a short command line per process. */
  atPeak: Array<{ pid: number; rssMb: number; command: string }>;
  summaryLines: string[];
  /** Where the CPU went: by process and thread, by phase (src/bench/cpu-breakdown.ts). */
  cpu: CpuBreakdown;
  /** pid → what the process was (for naming its profiles). */
  labels: Record<number, string>;
}

export interface RunBenchOptions {
  /** The checkout whose bin/speakcheck.js runs (default: this one; `bench --against` another). */
  root?: string;
  /** Write V8 CPU profiles of every process and thread of the run here (`--cpu-prof`). */
  profileDir?: string;
}

function commandOf(pid: number): string {
  try {
    const argv = readFileSync(join('/proc', String(pid), 'cmdline'), 'utf8')
      .split('\0')
      .filter(Boolean);
    return argv
      .map((a) => a.replace(REPO_ROOT, '.').replace(/^.*node_modules\//, ''))
      .join(' ')
      .slice(0, 100);
  } catch {
    return '?';
  }
}

/** `timing: stack start 1.2 s, preflight 0.3 s, suites 9.8 s; 955 requests, …` → { 'stack start': 1.2, … }. */
export function parsePhases(output: string): Record<string, number> {
  // The phases end at the `;` before the traffic (which dropped the suites phase before).
  const line = /^timing: ([^;\n]*)/m.exec(output)?.[1] ?? '';
  const phases: Record<string, number> = {};
  for (const part of line.split(', ')) {
    const match = /^(.+) ([\d.]+) s$/.exec(part);
    if (match) phases[match[1]!] = Number(match[2]);
  }
  return phases;
}

/** The live summary's `  webhooks     9 passed   0 failed   0 skipped  8.9 s` lines. */
function parseAreas(output: string): Record<string, number> {
  const areas: Record<string, number> = {};
  for (const match of output.matchAll(/^ {2}(\S+)\s+\d+ passed\s+\d+ failed\s+\d+ skipped\s+([\d.]+) s/gm)) {
    areas[match[1]!] = Math.max(areas[match[1]!] ?? 0, Number(match[2]));
  }
  return areas;
}

/**
 * A reference stack served with latitude switches (`--latitude hosted-latency`: a hosted TTS's
 * latencies), for runs against it as against any server (`run --base-url`): what a run against a
 * slow server takes, measured in-tree. The run's own accounts are the stack's two customers.
 */
export async function serveWithLatitude(latitudes: readonly string[]): Promise<{
  runArgs: string[];
  stop: () => Promise<unknown>;
}> {
  const stack = await launch({
    args: [
      SPEAKCHECK_BIN,
      'serve',
      '--port',
      '0',
      ...EMBEDDED_RUN_SERVE_ARGS,
      ...latitudes.flatMap((name) => ['--latitude', name]),
    ],
    cwd: REPO_ROOT,
    what: 'the reference stack',
    ready: serveReady({ also: ['second_email', 'second_password'] }),
  });
  const field = (key: string) => stack.fields.get(key) ?? '';
  return {
    runArgs: [
      '--base-url',
      field('base_url'),
      '--email',
      field('email'),
      '--password',
      field('password'),
      '--second-email',
      field('second_email'),
      '--second-password',
      field('second_password'),
    ],
    stop: () => stack.stop(),
  };
}

/**
 * The run measured as a user starts it (`node bin/speakcheck.js`): glibc reads its malloc settings
 * when a process starts, and bin/speakcheck.js sets them for the processes it starts (the stack's),
 * which a run started from a shell does not have for itself; this process has them only because its
 * own start set them, and handing them on made the measured run leaner than a user's.
 */
function runAsAUserStartsIt(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const asAUser: NodeJS.ProcessEnv = { ...env, SPEAKCHECK_RUN_CONFIG: '' };
  for (const name of Object.keys(CHILD_MALLOC_ENV)) delete asAUser[name];
  return asAUser;
}

export async function runBench(extraArgs: string[] = [], o: RunBenchOptions = {}): Promise<BenchResult> {
  const root = o.root ?? REPO_ROOT;
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  let sampler: TreeCpuSampler | undefined;
  // The run hands these on to its vitest threads and its stack's processes and threads
  // (reference/entry-points.ts PROFILER_ARGS); NODE_OPTIONS may not carry them.
  const profiling = o.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`] : [];
  const child = await launch({
    args: [...profiling, join(root, 'bin', 'speakcheck.js'), 'run', ...extraArgs],
    cwd: root,
    env: runAsAUserStartsIt(process.env),
    onLine: (line) => sampler?.mark(line),
  });
  sampler = new TreeCpuSampler(child.pid);
  let peakTreeKb = 0;
  let peakTreePssKb = 0;
  let peakSingleKb = 0;
  let peakProcesses = 0;
  let atPeak: BenchResult['atPeak'] = [];
  const sample = () => {
    const members = tree(child.pid, readProcs());
    const total = members.reduce((n, p) => n + p.rssKb, 0);
    if (total > peakTreeKb) {
      atPeak = members.map((p) => ({
        pid: p.pid,
        rssMb: Math.round(p.rssKb / 1024),
        command: commandOf(p.pid),
      }));
      // Only at a new RSS high: the kernel walks every mapping of a process to write smaps_rollup,
      // too much work for every 100 ms sample on the machine whose run is being timed.
      peakTreePssKb = Math.max(
        peakTreePssKb,
        members.reduce((n, p) => n + pssKb(p.pid), 0),
      );
    }
    peakTreeKb = Math.max(peakTreeKb, total);
    peakSingleKb = Math.max(peakSingleKb, ...members.map((p) => p.rssKb), 0);
    peakProcesses = Math.max(peakProcesses, members.length);
    sampler?.sample();
  };
  const timer = setInterval(sample, 100);
  const { code: exitCode } = await child.exited;
  const output = child.output();
  clearInterval(timer);
  const wallS = (performance.now() - started) / 1000;
  const summaryLines = output
    .split('\n')
    .filter((l) =>
      /^(tests:|characters synthesized|timing:|reports:|judged:|verdict:|speakcheck: could not run)/.test(l),
    );
  const cpuS = childrenCpuSeconds() - cpuBefore;
  return {
    exitCode,
    wallS,
    cpuS,
    cpu: sampler.result(cpuS),
    labels: sampler.labels(),
    peakTreeMb: peakTreeKb / 1024,
    peakTreePssMb: peakTreePssKb / 1024,
    peakSingleMb: peakSingleKb / 1024,
    peakProcesses,
    phases: parsePhases(output),
    areas: parseAreas(output),
    atPeak: atPeak.sort((a, b) => b.rssMb - a.rssMb),
    summaryLines,
  };
}

export interface StackStartResult {
  /** From spawning `speakcheck serve` to its `password=` line (what the run waits for). */
  readyS: number;
  /** The API's and each worker's start-up log lines (reference/server.ts, reference/worker/pool.ts). */
  steps: string[];
}

/** Starts the embedded stack alone once, as a run starts it (`speakcheck serve --port 0` with EMBEDDED_RUN_SERVE_ARGS), then stops it. */
export async function stackStart(): Promise<StackStartResult> {
  const started = performance.now();
  const steps: string[] = [];
  const stack = await launch({
    args: [SPEAKCHECK_BIN, 'serve', '--port', '0', ...EMBEDDED_RUN_SERVE_ARGS],
    cwd: REPO_ROOT,
    what: 'the reference stack',
    ready: serveReady(),
  });
  const readyS = (performance.now() - started) / 1000;
  // The start-up lines come just before the ready lines: let stderr catch up, then stop.
  await new Promise((resolve) => setTimeout(resolve, 200));
  await stack.stop();
  for (const line of stack.stderr().split('\n')) {
    const step = /(\[?worker-\d+\]? ready in .*|startup: .*)$/.exec(line)?.[1];
    if (step) steps.push(step);
  }
  return { readyS, steps };
}

export interface SynthesisRates {
  oneThread: number;
  twoThreads: number;
  scaling: number;
  /** CPU cores the synthesis process got during its best two-thread round. */
  twoThreadsCores: number;
}

/** Audio seconds per wall second of one and of two espeak threads (reference/bench/synth-bench.ts). */
export async function synthesisRates(): Promise<SynthesisRates | string> {
  if (!existsSync(SYNTH_BENCH)) return 'reference/bench/ is not shipped in the package: skipped';
  const { code, stdout: output } = await runToEnd({
    args: ['--import', ESPEAK_V8_PRELOAD, '--import', 'tsx', SYNTH_BENCH, '--speed-json'],
    cwd: REPO_ROOT,
    stderr: 'inherit',
    timeoutMs: 10 * 60_000,
  });
  const json = output.split('\n').find((l) => l.startsWith('{'));
  if (code !== 0 || !json) return `synth-bench failed (exit ${code})`;
  return JSON.parse(json) as SynthesisRates;
}

export function machineLine(): string {
  const cpu = cpus();
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return `machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}; load average ${load}`;
}

const seconds = (n: number | undefined) => (n === undefined ? '?' : `${n.toFixed(1)} s`);

/** The figures of one run, one line each. */
export function runLines(r: BenchResult): string[] {
  const areas = Object.entries(r.areas)
    .sort((a, b) => b[1] - a[1])
    .map(([area, s]) => `${area} ${seconds(s)}`)
    .join(', ');
  return [
    `exit ${r.exitCode}; wall ${seconds(r.wallS)}, CPU ${seconds(r.cpuS)}; peak RSS tree ${r.peakTreeMb.toFixed(0)} MB (${r.peakProcesses} processes at most; PSS ${r.peakTreePssMb.toFixed(0)} MB), largest process ${r.peakSingleMb.toFixed(0)} MB`,
    `phases: ${Object.entries(r.phases)
      .map(([phase, s]) => `${phase} ${seconds(s)}`)
      .join(', ')}`,
    `areas: ${areas}`,
  ];
}
