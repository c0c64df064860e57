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
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { REPO_ROOT } from '../stack/embedded.ts';

export const TARGET_WALL_S = 12;
export const TARGET_RSS_MB = 600;
export const TARGET_SYNTH_SCALING = 1.7;
const PAGE_KB = 4;
/** USER_HZ: /proc times are in clock ticks of 1/100 s on Linux. */
const TICKS_PER_S = 100;
const SPEAKCHECK = join(REPO_ROOT, 'bin', 'speakcheck.js');
const SYNTH_BENCH = join(REPO_ROOT, 'reference', 'bench', 'synth-bench.ts');

interface ProcInfo {
  pid: number;
  ppid: number;
  rssKb: number;
  name: string;
}

/** Fields of /proc/PID/stat after the command name (field 3 of proc(5) is index 0). */
function statFields(pid: number | 'self'): string[] {
  const stat = readFileSync(join('/proc', String(pid), 'stat'), 'utf8');
  // The name is in parentheses and may contain spaces: split after the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function readProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = statFields(Number(entry));
      out.push({ pid: Number(entry), ppid: Number(fields[1]), rssKb: Number(fields[21]) * PAGE_KB, name });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
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
  const fields = statFields('self');
  return (Number(fields[13]) + Number(fields[14])) / TICKS_PER_S;
}

/** The process and all its descendants. */
function tree(root: number, procs: ProcInfo[]): ProcInfo[] {
  const children = new Map<number, ProcInfo[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const result: ProcInfo[] = [];
  const stack = procs.filter((p) => p.pid === root);
  while (stack.length > 0) {
    const p = stack.pop()!;
    result.push(p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return result;
}

export interface BenchResult {
  exitCode: number | null;
  wallS: number;
  /** CPU seconds (user + system) of the whole tree. */
  cpuS: number;
  peakTreeMb: number;
  /** The tree's peak PSS: what it takes from the machine (shared pages such as Node's binary once). */
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

/** `timing: stack start 1.2 s, preflight 0.3 s, suites 9.8 s` → { 'stack start': 1.2, … }. */
function parsePhases(output: string): Record<string, number> {
  const line = /^timing: (.*)$/m.exec(output)?.[1] ?? '';
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

export async function runBench(extraArgs: string[] = []): Promise<BenchResult> {
  const started = performance.now();
  const cpuBefore = childrenCpuSeconds();
  const child = spawn(process.execPath, [SPEAKCHECK, 'run', ...extraArgs], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '' },
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  let peakTreeKb = 0;
  let peakTreePssKb = 0;
  let peakSingleKb = 0;
  let peakProcesses = 0;
  let atPeak: BenchResult['atPeak'] = [];
  const sample = () => {
    const members = tree(child.pid!, readProcs());
    const total = members.reduce((n, p) => n + p.rssKb, 0);
    if (total > peakTreeKb) {
      atPeak = members.map((p) => ({
        pid: p.pid,
        rssMb: Math.round(p.rssKb / 1024),
        command: commandOf(p.pid),
      }));
    }
    peakTreeKb = Math.max(peakTreeKb, total);
    peakTreePssKb = Math.max(
      peakTreePssKb,
      members.reduce((n, p) => n + pssKb(p.pid), 0),
    );
    peakSingleKb = Math.max(peakSingleKb, ...members.map((p) => p.rssKb), 0);
    peakProcesses = Math.max(peakProcesses, members.length);
  };
  const timer = setInterval(sample, 100);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearInterval(timer);
  const wallS = (performance.now() - started) / 1000;
  const summaryLines = output
    .split('\n')
    .filter((l) =>
      /^(tests:|characters synthesized|timing:|reports:|verdict:|speakcheck: could not run)/.test(l),
    );
  return {
    exitCode,
    wallS,
    cpuS: childrenCpuSeconds() - cpuBefore,
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

/** Starts the embedded stack alone once (`speakcheck serve --port 0`), then stops it. */
export async function stackStart(): Promise<StackStartResult> {
  const started = performance.now();
  const child = spawn(process.execPath, [SPEAKCHECK, 'serve', '--port', '0'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const steps: string[] = [];
  createInterface({ input: child.stderr }).on('line', (line) => {
    const step = /(\[?worker-\d+\]? ready in .*|startup: .*)$/.exec(line)?.[1];
    if (step) steps.push(step);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const readyS = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('password=')) resolve((performance.now() - started) / 1000);
    });
    child.once('exit', (code) => reject(new Error(`speakcheck serve exited (${code}) before it was ready`)));
  });
  // The start-up line comes just before the ready lines: let stderr catch up, then stop.
  await new Promise((resolve) => setTimeout(resolve, 200));
  child.kill('SIGTERM');
  await exited;
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
  const child = spawn(process.execPath, ['--import', 'tsx', SYNTH_BENCH, '--speed-json'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    output += d;
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const json = output.split('\n').find((l) => l.startsWith('{'));
  if (code !== 0 || !json) return `synth-bench failed (exit ${code})`;
  return JSON.parse(json) as SynthesisRates;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
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
