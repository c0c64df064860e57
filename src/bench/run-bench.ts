/**
 * Benchmark of a full conformance run: `speakcheck run` against the embedded reference stack (stack
 * start included), measuring wall time and the peak resident memory of the whole process tree
 * (CLI, vitest workers, the reference stack and its workers), sampled from /proc every 100 ms.
 * Targets: <= 20 s and <= 300 MB.
 *
 *   node --import tsx src/bench/run-bench.ts [-- extra speakcheck run options]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, SPEAKCHECK_BIN } from '../stack/embedded.ts';
import { launch } from '../stack/launcher.ts';
import { readProcs, tree } from '../stack/process-tree.ts';

export const TARGET_WALL_S = 20;
export const TARGET_RSS_MB = 300;
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
  const child = await launch({
    args: [SPEAKCHECK_BIN, 'run', ...extraArgs],
    cwd: REPO_ROOT,
    env: { ...process.env, SPEAKCHECK_RUN_CONFIG: '' },
  });
  let peakTreeKb = 0;
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
    }
    peakTreeKb = Math.max(peakTreeKb, total);
    peakSingleKb = Math.max(peakSingleKb, ...members.map((p) => p.rssKb), 0);
    peakProcesses = Math.max(peakProcesses, members.length);
  };
  const timer = setInterval(sample, 100);
  const { code: exitCode } = await child.exited;
  const output = child.output();
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
