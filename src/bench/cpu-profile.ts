/**
 * V8 CPU profiles of a run (`bench --profile`): every Node process of the run's tree started with
 * `--cpu-prof` (NODE_OPTIONS, inherited by the stack's processes and, in Node 20, by their worker
 * threads: the suites' vitest threads, the espeak threads), one `.cpuprofile` per thread, and here
 * the self time of each function summed over all of them, and each profile's total by package.
 * The format is V8's Profiler.Profile: nodes (a call tree, each with its callFrame), samples (the
 * node each sample hit) and timeDeltas (µs before each sample).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface FunctionSelf {
  /** `name (where:line)`. */
  name: string;
  /** The package or area the function is in (node_modules/<pkg>, node:internal, src/…, V8's own). */
  where: string;
  selfS: number;
}

export interface ProfileSummary {
  file: string;
  totalS: number;
  /** Self seconds by package or area, largest first. */
  byWhere: Array<{ where: string; selfS: number }>;
}

/** Where a function lives: a package, Node's internals, a folder of this repo, or V8's pseudo-frames. */
export function whereOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return pkg;
  if (url.startsWith('node:')) return 'node:internal';
  const repo = /\/((?:src|reference|suites|fixtures|schemas|bin)\/[^/]+)/.exec(url)?.[1];
  if (repo) return repo;
  if (/\/bundle\/[^/]+\/[^/]+\/(chunk-|cli|worker-main|espeak-thread)/.test(url)) return 'speakcheck bundle';
  return url.replace(/^file:\/\//, '').slice(-60);
}

/** Self seconds per profile node id. */
function selfByNode(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  const { samples, timeDeltas } = profile;
  // A sample's time is the delta before the next one (the last one gets none).
  for (let i = 0; i < samples.length - 1; i++) {
    const id = samples[i]!;
    self.set(id, (self.get(id) ?? 0) + timeDeltas[i + 1]! / 1e6);
  }
  return self;
}

export function summarize(
  profiles: Array<{ file: string; profile: CpuProfile }>,
  top = 25,
): { functions: FunctionSelf[]; profiles: ProfileSummary[] } {
  const functions = new Map<string, FunctionSelf>();
  const summaries: ProfileSummary[] = [];
  for (const { file, profile } of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const byWhere = new Map<string, number>();
    let totalS = 0;
    for (const [id, selfS] of selfByNode(profile)) {
      const frame = nodes.get(id)?.callFrame;
      if (!frame || frame.functionName === '(idle)') continue;
      totalS += selfS;
      const where = whereOf(frame.url, frame.functionName);
      byWhere.set(where, (byWhere.get(where) ?? 0) + selfS);
      const place = frame.url ? ` ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}` : '';
      const name = `${frame.functionName || '(anonymous)'}${place}`;
      const f = functions.get(name) ?? { name, where, selfS: 0 };
      f.selfS += selfS;
      functions.set(name, f);
    }
    summaries.push({
      file: basename(file),
      totalS,
      byWhere: [...byWhere].map(([w, s]) => ({ where: w, selfS: s })).sort((a, b) => b.selfS - a.selfS),
    });
  }
  return {
    functions: [...functions.values()].sort((a, b) => b.selfS - a.selfS).slice(0, top),
    profiles: summaries.sort((a, b) => b.totalS - a.totalS),
  };
}

/** Every `.cpuprofile` under `dir` (one level of subdirectories: one per run). */
export function readProfiles(dir: string): Array<{ file: string; profile: CpuProfile }> {
  const out: Array<{ file: string; profile: CpuProfile }> = [];
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!entry.endsWith('.cpuprofile')) continue;
    const file = join(dir, entry);
    try {
      out.push({ file, profile: JSON.parse(readFileSync(file, 'utf8')) as CpuProfile });
    } catch {
      // a profile cut short (a process killed while writing it): left out
    }
  }
  return out;
}

/** The summary, a line each: the top functions, then each busy profile by package. */
export function profileLines(s: ReturnType<typeof summarize>, processOf: (file: string) => string): string[] {
  // Sampled time: a thread that waited for a core meanwhile (a busy machine) is counted as on its frame.
  const lines = [
    `top self time (sampled, idle left out) over ${s.profiles.length} profiles, one per thread:`,
  ];
  for (const f of s.functions) lines.push(`  ${f.selfS.toFixed(2).padStart(6)} s  ${f.name}  [${f.where}]`);
  lines.push('profiles by package (self time):');
  for (const p of s.profiles.filter((x) => x.totalS >= 0.1)) {
    const parts = p.byWhere
      .slice(0, 6)
      .map((w) => `${w.where} ${w.selfS.toFixed(2)}`)
      .join(', ');
    lines.push(`  ${p.totalS.toFixed(2).padStart(6)} s  ${processOf(p.file)}: ${parts}`);
  }
  return lines;
}
