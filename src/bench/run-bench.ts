/**
 * Benchmark of a full conformance run: `speakcheck run` against the embedded reference stack (stack
 * start included), measuring wall time and the peak resident memory of the whole process tree
 * (CLI, vitest workers, the reference stack and its workers), sampled from /proc every 100 ms.
 * Targets: <= 20 s and <= 300 MB.
 *
 *   node --import tsx src/bench/run-bench.ts [-- extra speakcheck run options]
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../stack/embedded.ts';

export const TARGET_WALL_S = 20;
export const TARGET_RSS_MB = 300;
const PAGE_KB = 4;

interface ProcInfo {
  pid: number;
  ppid: number;
  rssKb: number;
  name: string;
}

function readProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      // The name is in parentheses and may contain spaces: split after the last ')'.
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      out.push({ pid: Number(entry), ppid: Number(fields[1]), rssKb: Number(fields[21]) * PAGE_KB, name });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
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
  peakTreeMb: number;
  peakSingleMb: number;
  peakProcesses: number;
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

export async function runBench(extraArgs: string[] = []): Promise<BenchResult> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'speakcheck.js'), 'run', ...extraArgs], {
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
    peakTreeMb: peakTreeKb / 1024,
    peakSingleMb: peakSingleKb / 1024,
    peakProcesses,
    atPeak: atPeak.sort((a, b) => b.rssMb - a.rssMb),
    summaryLines,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const extra = process.argv.slice(2).filter((a) => a !== '--');
  const r = await runBench(extra);
  for (const line of r.summaryLines) console.log(`  ${line}`);
  console.log(`speakcheck run (embedded stack, full suites): exit ${r.exitCode}`);
  console.log(`wall time:          ${r.wallS.toFixed(1)} s   (target <= ${TARGET_WALL_S} s)`);
  console.log(
    `peak RSS (tree):    ${r.peakTreeMb.toFixed(0)} MB  (target <= ${TARGET_RSS_MB} MB; ${r.peakProcesses} processes at most)`,
  );
  console.log(`peak RSS (largest single process): ${r.peakSingleMb.toFixed(0)} MB`);
  console.log('at the peak:');
  for (const p of r.atPeak) console.log(`  ${String(p.rssMb).padStart(5)} MB  ${p.command}`);
}
