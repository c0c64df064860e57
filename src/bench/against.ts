/**
 * `bench --against <git ref | directory>`: the other side of a paired comparison, a second
 * checkout whose `bin/speakcheck.js run` is timed alternately with this one's, on the same machine
 * in the same call, so that the other jobs sharing the machine weigh on both sides alike. A git ref
 * is exported (`git archive`) into a temporary directory with this clone's node_modules linked in;
 * the checkout's CLI bundle is made once before the first timed run (its first start makes it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../figures/stats.ts';
import { REPO_ROOT } from '../stack/embedded.ts';
import type { BenchResult } from './run-bench.ts';

export interface Checkout {
  root: string;
  /** What it is, for the output: the ref and its commit, or the directory. */
  name: string;
  remove: () => void;
}

export function checkoutOf(refOrDir: string): Checkout {
  if (existsSync(join(refOrDir, 'bin', 'speakcheck.js'))) {
    const root = resolve(refOrDir);
    return { root, name: root, remove: () => undefined };
  }
  const git = (args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const commit = git(['rev-parse', '--verify', `${refOrDir}^{commit}`]);
  const root = mkdtempSync(join(tmpdir(), 'speakcheck-bench-against-'));
  execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${root}"`], { cwd: REPO_ROOT });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  // Its first start bundles the sources (esbuild, ~1 s): done here, not in a timed run.
  execFileSync(process.execPath, [join(root, 'bin', 'speakcheck.js'), '--version'], { cwd: root });
  return {
    root,
    name: `${refOrDir} (${commit.slice(0, 7)})`,
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface PairedFigures {
  /** This checkout's figure over the other's, per pair. */
  cpuRatios: number[];
  wallRatios: number[];
  treeRatios: number[];
}

/** Ratios of the runs taken in pairs (the other side first, then this one, alternately). */
export function pairedRatios(base: BenchResult[], mine: BenchResult[]): PairedFigures {
  const ratio = (f: (r: BenchResult) => number) => base.map((b, i) => f(mine[i]!) / f(b));
  return {
    cpuRatios: ratio((r) => r.cpuS),
    wallRatios: ratio((r) => r.wallS),
    treeRatios: ratio((r) => r.peakTreeMb),
  };
}

const spread = (values: number[], digits: number) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

export function pairedLines(otherName: string, base: BenchResult[], mine: BenchResult[]): string[] {
  const p = pairedRatios(base, mine);
  const side = (rs: BenchResult[]) =>
    `wall ${spread(
      rs.map((r) => r.wallS),
      1,
    )} s, CPU ${spread(
      rs.map((r) => r.cpuS),
      1,
    )} s, peak tree ${spread(
      rs.map((r) => r.peakTreeMb),
      0,
    )} MB, conformed ${rs.filter((r) => r.exitCode === 0).length} of ${rs.length}`;
  return [
    `paired against ${otherName}, ${base.length} pairs, alternating (median (min–max)):`,
    `  against: ${side(base)}`,
    `  this:    ${side(mine)}`,
    `  this/against: CPU ${spread(p.cpuRatios, 2)}, wall ${spread(p.wallRatios, 2)}, peak tree ${spread(p.treeRatios, 2)}`,
  ];
}
