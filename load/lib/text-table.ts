/**
 * The compact text table k6 prints at the end of a run (handleSummary's stdout). Kept apart from
 * summary.ts, which reads the k6 environment, so Node tests can import it.
 */

export interface MetricSummary {
  type: string;
  contains?: string;
  values: Record<string, number>;
  thresholds?: Record<string, { ok: boolean }>;
}

export interface SummaryData {
  metrics: Record<string, MetricSummary>;
  [key: string]: unknown;
}

function fmt(value: number | undefined, time: boolean): string {
  if (value === undefined) return '-';
  return time ? `${value.toFixed(2)}ms` : `${Math.round(value * 1000) / 1000}`;
}

export function textTable(data: SummaryData): string {
  const lines: string[] = [];
  for (const name of Object.keys(data.metrics).sort()) {
    if (!name.startsWith('speak_') && !name.startsWith('iterations') && !name.startsWith('http_req_failed'))
      continue;
    const m = data.metrics[name]!;
    const v = m.values;
    const time = m.contains === 'time';
    let row: string;
    if (m.type === 'trend' && v.count === 0) {
      // k6 reports a trend that never got a sample as all zeros, which reads like a 0 ms latency.
      row = 'no samples';
    } else if (m.type === 'trend') {
      row = `p50=${fmt(v.med, time)} p95=${fmt(v['p(95)'], time)} p99=${fmt(v['p(99)'], time)} max=${fmt(v.max, time)} n=${v.count ?? '-'}`;
    } else if (m.type === 'rate') {
      row = `rate=${fmt(v.rate, false)} (${v.passes ?? 0} of ${(v.passes ?? 0) + (v.fails ?? 0)})`;
    } else if (m.type === 'counter') {
      row = `count=${fmt(v.count, false)} per_s=${fmt(v.rate, false)}`;
    } else {
      row = Object.entries(v)
        .map(([k, x]) => `${k}=${fmt(x, false)}`)
        .join(' ');
    }
    const failed = Object.entries(m.thresholds ?? {})
      .filter(([, t]) => !t.ok)
      .map(([expr]) => expr);
    lines.push(`${name.padEnd(44)} ${row}${failed.length ? `  THRESHOLD FAILED: ${failed.join(', ')}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
