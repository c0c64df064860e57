/**
 * Processes from /proc (Linux): pid, parent, resident memory. The launcher kills a child's whole
 * tree with it; the bench sums the tree's memory. Elsewhere /proc is absent: an empty list.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const PAGE_KB = 4;

export interface ProcInfo {
  pid: number;
  ppid: number;
  rssKb: number;
  name: string;
  /** R running, S sleeping, Z zombie (dead, not yet reaped), … */
  state: string;
}

export function readProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      // The name is in parentheses and may contain spaces: split after the last ')'.
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      out.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        rssKb: Number(fields[21]) * PAGE_KB,
        name,
        state: fields[0]!,
      });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** The process and all its descendants. */
export function tree(root: number, procs: ProcInfo[]): ProcInfo[] {
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
