/**
 * Where a run's CPU goes (issue 52): every process of the run's tree and every thread of each,
 * sampled from /proc every 100 ms (the last value seen of each is its total: CPU time only grows),
 * and the tree's CPU between the lines the run prints (its phases: the start up to the server's
 * version line, each area's end, the teardown after the last one). Node names none of its threads
 * (each is `node` in /proc), so a thread is told by when it started: the suites' vitest threads
 * and the synthesis worker's espeak threads start seconds after their process, V8's and libuv's
 * helpers with it. What the sampler cannot see (a process that lived less than 100 ms, each
 * process's last 100 ms) is the difference to the tree's total, shown as its own row.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProcs, tree } from '../stack/process-tree.ts';

const TICKS_PER_S = 100;
const PAGE_KB = 4;
/** A thread that used at least this much CPU is listed on its own; the others are summed. */
const THREAD_LISTED_S = 0.2;

interface Stat {
  ppid: number;
  /** utime + stime, seconds. */
  cpuS: number;
  /** cutime + cstime: the children it waited for (ffmpeg encodes, esbuild), seconds. */
  reapedS: number;
  /** Seconds since boot. */
  startS: number;
  rssKb: number;
}

function readStat(path: string): Stat | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    // The name is in parentheses and may contain spaces: field 3 of proc(5) is index 0 after ')'.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      ppid: Number(f[1]),
      cpuS: (Number(f[11]) + Number(f[12])) / TICKS_PER_S,
      reapedS: (Number(f[13]) + Number(f[14])) / TICKS_PER_S,
      startS: Number(f[19]) / TICKS_PER_S,
      rssKb: Number(f[21]) * PAGE_KB,
    };
  } catch {
    return undefined; // ended while we looked
  }
}

function cmdline(pid: number): string[] {
  try {
    return readFileSync(join('/proc', String(pid), 'cmdline'), 'utf8')
      .split('\0')
      .filter(Boolean);
  } catch {
    return [];
  }
}

/** What a process of a run's tree is, from its command line. */
export function processLabel(argv: readonly string[], isRoot: boolean): string {
  const line = argv.join(' ');
  if (argv.length === 0) return '(ended before its command line was read)';
  if (isRoot) return 'run (speakcheck run: vitest, its suite threads)';
  if (/ffmpeg/.test(argv[0] ?? '')) return 'ffmpeg';
  if (/esbuild/.test(line)) return 'esbuild (vite transforms)';
  if (/worker-main|reference\/worker\/main/.test(line)) return 'synthesis worker';
  if (/\bserve\b/.test(line)) return 'API (speakcheck serve)';
  return argv[0]!.split('/').pop()!;
}

interface Seen {
  pid: number;
  label: string;
  stat: Stat;
  peakRssKb: number;
  threads: Map<number, Stat>;
}

export interface ThreadCpu {
  /** `main`, or `thread +N.N s` (its start after the process's). */
  name: string;
  cpuS: number;
}

export interface ProcessCpu {
  label: string;
  /** Processes of this label (ffmpeg: one per encode). */
  count: number;
  cpuS: number;
  peakRssMb: number;
  /** One process only: its threads, the busy ones by name, the rest summed. */
  threads?: ThreadCpu[];
}

export interface PhaseCpu {
  phase: string;
  wallS: number;
  cpuS: number;
}

export interface CpuBreakdown {
  processes: ProcessCpu[];
  phases: PhaseCpu[];
}

/** Phase boundaries from the run's stdout: the version line ends the start, an area line ends that area's window. */
export function phaseOfLine(line: string): string | undefined {
  if (/^speakcheck: version /.test(line)) return 'start (stack, vitest, preflight)';
  const area = /^ {2}(\S+)\s+\d+ passed\s+\d+ failed/.exec(line)?.[1];
  return area ? `suites until ${area} ended` : undefined;
}

export class TreeCpuSampler {
  private readonly seen = new Map<number, Seen>();
  private readonly marks: Array<{ phase: string; atMs: number; cpuS: number }> = [];
  private readonly started = performance.now();

  constructor(private readonly root: number) {}

  /** Reads every process and thread of the tree once. */
  sample(): void {
    for (const p of tree(this.root, readProcs())) {
      const stat = readStat(join('/proc', String(p.pid), 'stat'));
      if (!stat) continue;
      let seen = this.seen.get(p.pid);
      if (!seen) {
        seen = {
          pid: p.pid,
          label: processLabel(cmdline(p.pid), p.pid === this.root),
          stat,
          peakRssKb: 0,
          threads: new Map(),
        };
        this.seen.set(p.pid, seen);
      }
      seen.stat = stat;
      seen.peakRssKb = Math.max(seen.peakRssKb, stat.rssKb);
      let tids: string[] = [];
      try {
        tids = readdirSync(join('/proc', String(p.pid), 'task'));
      } catch {
        continue;
      }
      for (const tid of tids) {
        const t = readStat(join('/proc', String(p.pid), 'task', tid, 'stat'));
        if (t) seen.threads.set(Number(tid), t);
      }
    }
  }

  /** The tree's CPU seen so far (each process at its last sample). */
  seenCpuS(): number {
    let sum = 0;
    for (const s of this.seen.values()) sum += s.stat.cpuS;
    return sum;
  }

  /** A phase ends now (a line of the run's output). */
  mark(line: string): void {
    const phase = phaseOfLine(line);
    if (!phase) return;
    this.sample();
    this.marks.push({ phase, atMs: performance.now() - this.started, cpuS: this.seenCpuS() });
  }

  labels(): Record<number, string> {
    return Object.fromEntries([...this.seen.values()].map((s) => [s.pid, s.label]));
  }

  /** After the run's exit: `totalCpuS` is the tree's CPU as the kernel counted it (the children's rusage). */
  result(totalCpuS: number): CpuBreakdown {
    const endMs = performance.now() - this.started;
    const phases: PhaseCpu[] = [];
    let prev = { atMs: 0, cpuS: 0 };
    for (const m of [
      ...this.marks,
      { phase: 'teardown (reports, stack stop)', atMs: endMs, cpuS: totalCpuS },
    ]) {
      phases.push({ phase: m.phase, wallS: (m.atMs - prev.atMs) / 1000, cpuS: m.cpuS - prev.cpuS });
      prev = m;
    }
    const byLabel = new Map<string, Seen[]>();
    for (const s of this.seen.values()) byLabel.set(s.label, [...(byLabel.get(s.label) ?? []), s]);
    const processes: ProcessCpu[] = [...byLabel].map(([label, list]) => ({
      label,
      count: list.length,
      cpuS: list.reduce((n, s) => n + s.stat.cpuS, 0),
      peakRssMb: Math.max(...list.map((s) => s.peakRssKb)) / 1024,
      ...(list.length === 1 ? { threads: threadsOf(list[0]!) } : {}),
    }));
    processes.sort((a, b) => b.cpuS - a.cpuS);
    const unseen = totalCpuS - this.seenCpuS();
    if (unseen > 0.05)
      processes.push({
        label: 'unseen (processes shorter than a sample, the last 100 ms of each)',
        count: 0,
        cpuS: unseen,
        peakRssMb: 0,
      });
    return { processes, phases };
  }
}

function threadsOf(s: Seen): ThreadCpu[] {
  const listed: ThreadCpu[] = [];
  let rest = 0;
  let restCount = 0;
  for (const [tid, t] of s.threads) {
    if (tid === s.pid) listed.push({ name: 'main', cpuS: t.cpuS });
    else if (t.cpuS >= THREAD_LISTED_S)
      listed.push({ name: `thread +${(t.startS - s.stat.startS).toFixed(1)} s`, cpuS: t.cpuS });
    else {
      rest += t.cpuS;
      restCount++;
    }
  }
  listed.sort((a, b) => b.cpuS - a.cpuS);
  if (restCount > 0) listed.push({ name: `${restCount} other threads`, cpuS: rest });
  return listed;
}

/** The breakdown, a line each. */
export function breakdownLines(b: CpuBreakdown): string[] {
  const lines = ['CPU by process:'];
  for (const p of b.processes) {
    const threads = p.threads
      ?.filter((t) => t.cpuS >= 0.05)
      .map((t) => `${t.name} ${t.cpuS.toFixed(1)}`)
      .join(', ');
    lines.push(
      `  ${p.cpuS.toFixed(1).padStart(5)} s  ${p.label}${p.count > 1 ? ` ×${p.count}` : ''}${p.peakRssMb ? `, peak ${p.peakRssMb.toFixed(0)} MB` : ''}${threads ? ` (${threads})` : ''}`,
    );
  }
  lines.push('CPU by phase:');
  for (const p of b.phases)
    lines.push(
      `  ${p.cpuS.toFixed(1).padStart(5)} s in ${p.wallS.toFixed(1).padStart(4)} s wall  ${p.phase}`,
    );
  return lines;
}
