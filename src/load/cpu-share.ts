/**
 * The load generator's own share of the machine. k6 and the server under test often share the
 * same cores (the embedded stack always does): a generator that takes much of the CPU slows the
 * server it measures, and its figures then describe the pair. While k6 runs, its CPU time
 * (/proc/<pid>/stat utime + stime) and the machine's (/proc/stat, all CPUs) are sampled; the
 * share over an interval is k6's ticks / the machine's ticks (1 = every core busy with k6 alone).
 * Linux only: elsewhere nothing is sampled and the summary says so.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Above this share of the machine, the summary warns that the generator competes with the server. */
export const GENERATOR_SHARE_WARN = 0.25;

export interface CpuSample {
  atMs: number;
  /** CPU ticks (user + system) of the sampled processes, summed. */
  processTicks: number;
  /** Ticks of every CPU of the machine, idle included, and the idle (+ iowait) part of them. */
  machineTicks: number;
  machineIdleTicks: number;
}

export interface CpuShare {
  fromMs: number;
  toMs: number;
  /** CPU seconds the generator used in the interval. */
  cpuSeconds: number;
  /** The generator's ticks / the machine's ticks (0–1 of all cores). */
  share: number;
  /** The machine's busy share in the interval (every process, the generator included). */
  machineBusy: number;
}

/** utime + stime (fields 14 and 15) of a /proc/<pid>/stat line; the name (field 2) may hold spaces. */
export function parseProcessTicks(stat: string): number {
  const rest = stat
    .slice(stat.lastIndexOf(')') + 2)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state): utime is field 14 → rest[11], stime field 15 → rest[12].
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`not a /proc/<pid>/stat line: ${stat}`);
  return utime + stime;
}

/** The aggregate `cpu` line of /proc/stat: total ticks (guest time is already inside user) and idle + iowait. */
export function parseMachineTicks(stat: string): { total: number; idle: number } {
  const line = stat.split('\n').find((l) => /^cpu\s/.test(l));
  if (!line) throw new Error('/proc/stat has no aggregate cpu line');
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest is counted in user.
  const total = v.slice(0, 8).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
  return { total, idle: (v[3] ?? 0) + (v[4] ?? 0) };
}

/** The share between the samples nearest to [fromMs, toMs]; undefined when fewer than two fall in it. */
export function cpuShareBetween(samples: CpuSample[], fromMs: number, toMs: number): CpuShare | undefined {
  const inside = samples.filter((s) => s.atMs >= fromMs - 250 && s.atMs <= toMs + 250);
  if (inside.length < 2) return undefined;
  const a = inside[0]!;
  const b = inside[inside.length - 1]!;
  const machine = b.machineTicks - a.machineTicks;
  if (machine <= 0) return undefined;
  const processTicks = b.processTicks - a.processTicks;
  return {
    fromMs: a.atMs,
    toMs: b.atMs,
    cpuSeconds: processTicks / clockTicksPerSecond(),
    share: processTicks / machine,
    machineBusy: (machine - (b.machineIdleTicks - a.machineIdleTicks)) / machine,
  };
}

/**
 * USER_HZ, the unit of /proc/<pid>/stat and /proc/stat: the kernel reports in 1/100 s on every
 * Linux architecture speakcheck runs on (x86, arm), whatever its internal tick rate.
 */
export function clockTicksPerSecond(): number {
  return 100;
}

export function machineCores(): number {
  return cpus().length;
}

/**
 * Samples the CPU ticks of the given processes (k6, or every segment's k6) every `intervalMs`. A
 * process that has exited keeps its last reading, so the total never goes backwards.
 */
export class CpuSampler {
  private readonly samples: CpuSample[] = [];
  private readonly lastTicks = new Map<number, number>();
  private readonly pids = new Set<number>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopped = false;
  readonly available: boolean;

  constructor(private readonly intervalMs = 500) {
    this.available = process.platform === 'linux' && readable('/proc/stat');
  }

  add(pid: number | undefined): void {
    if (pid === undefined || !this.available) return;
    this.pids.add(pid);
    this.sample();
    this.timer ??= setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  /** Takes a last sample and stops; returns every sample taken. */
  stop(): CpuSample[] {
    if (this.stopped) return this.samples;
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.pids.size) this.sample();
    return this.samples;
  }

  private sample(): void {
    try {
      const machine = parseMachineTicks(readFileSync('/proc/stat', 'utf8'));
      for (const pid of this.pids) {
        try {
          this.lastTicks.set(pid, parseProcessTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')));
        } catch {
          // exited: its last reading stands
        }
      }
      const processTicks = [...this.lastTicks.values()].reduce((a, b) => a + b, 0);
      this.samples.push({
        atMs: Date.now(),
        processTicks,
        machineTicks: machine.total,
        machineIdleTicks: machine.idle,
      });
    } catch {
      // /proc vanished mid-run: keep what was sampled
    }
  }
}

function readable(path: string): boolean {
  try {
    readFileSync(path, 'utf8');
    return true;
  } catch {
    return false;
  }
}

export interface GeneratorInterval {
  /** "measured phase", "step 16/s", ... */
  label: string;
  fromMs: number;
  toMs: number;
}

export interface GeneratorReport {
  cores: number;
  /** The share above which the report warns. */
  warnAbove: number;
  sampleIntervalMs: number;
  intervals: Array<GeneratorInterval & Partial<CpuShare>>;
  /** Whole k6 run(s), setup and warm-up included. */
  total?: CpuShare;
  /** One sentence per interval whose share passed warnAbove. */
  warnings: string[];
  /** Why nothing was measured (not Linux, no samples). */
  unavailable?: string;
}

/** The generator's share per interval (the ramp's steps, or the measured phase) and its warnings. */
export function generatorReport(
  samples: CpuSample[],
  intervals: GeneratorInterval[],
  o: { warnAbove?: number; sampleIntervalMs?: number; available?: boolean } = {},
): GeneratorReport {
  const warnAbove = o.warnAbove ?? GENERATOR_SHARE_WARN;
  const report: GeneratorReport = {
    cores: machineCores(),
    warnAbove,
    sampleIntervalMs: o.sampleIntervalMs ?? 500,
    intervals: [],
    warnings: [],
  };
  if (o.available === false || samples.length < 2) {
    report.unavailable =
      o.available === false
        ? 'no /proc on this system: the generator CPU share was not sampled'
        : 'too few CPU samples';
    return report;
  }
  report.total = cpuShareBetween(samples, samples[0]!.atMs, samples[samples.length - 1]!.atMs);
  for (const interval of intervals) {
    const share = cpuShareBetween(samples, interval.fromMs, interval.toMs);
    report.intervals.push({ ...interval, ...(share ?? {}) });
    if (share && share.share > warnAbove) {
      report.warnings.push(
        `the load generator (k6) took ${(share.share * 100).toFixed(0)} % of the machine (${report.cores} cores) in ${interval.label}, ` +
          `above ${(warnAbove * 100).toFixed(0)} %: it competes with the server for CPU, so these figures describe the pair; ` +
          'run k6 on another machine against --base-url, or spread it over machines (k6-operator); load/README.md',
      );
    }
  }
  return report;
}
