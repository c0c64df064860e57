/**
 * A horizontal grouped bar chart as a self-contained SVG string: one row per figure, a baseline bar
 * and a current bar, a labelled value axis with gridlines, a legend. No scripts, fonts or links, so
 * it renders the same inline in HTML, as a file, or offline.
 */

export interface BarRow {
  label: string;
  baseline?: number;
  current?: number;
  /** Draws the current bar in the regression colour. */
  regressed?: boolean;
}

export interface BarChart {
  title: string;
  /** The value axis label, unit included: "milliseconds (lower is better)". */
  axisLabel: string;
  rows: BarRow[];
  format?: (value: number) => string;
}

const COLORS = {
  baseline: '#9aa0a6',
  current: '#1a73e8',
  regressed: '#d93025',
  grid: '#e0e0e0',
  text: '#202124',
};
const WIDTH = 860;
const LABEL_W = 330;
const PLOT_W = 430;
const BAR_H = 10;
const ROW_H = 2 * BAR_H + 10;
const TOP = 54;

export function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Round axis ticks (1, 2, 2.5, 5 × 10^k steps) covering [0, max]. */
export function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function defaultFormat(value: number): string {
  if (Number.isInteger(value)) return String(value);
  const abs = Math.abs(value);
  return abs >= 100
    ? value.toFixed(0)
    : abs >= 10
      ? value.toFixed(1)
      : abs >= 1
        ? value.toFixed(2)
        : value.toPrecision(2);
}

export function renderBarChart(chart: BarChart): string {
  const format = chart.format ?? defaultFormat;
  const values = chart.rows
    .flatMap((r) => [r.baseline, r.current])
    .filter((v): v is number => v !== undefined);
  const ticks = niceTicks(Math.max(0, ...values));
  const axisMax = ticks[ticks.length - 1]!;
  const x = (v: number) => LABEL_W + (axisMax > 0 ? (v / axisMax) * PLOT_W : 0);
  const plotH = Math.max(1, chart.rows.length) * ROW_H;
  const height = TOP + plotH + 52;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(chart.title)}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<text x="10" y="20" font-size="14" font-weight="bold" fill="${COLORS.text}">${escapeXml(chart.title)}</text>`,
    // Legend
    `<rect x="${LABEL_W}" y="30" width="12" height="10" fill="${COLORS.baseline}"/><text x="${LABEL_W + 16}" y="39" fill="${COLORS.text}">baseline (median)</text>`,
    `<rect x="${LABEL_W + 130}" y="30" width="12" height="10" fill="${COLORS.current}"/><text x="${LABEL_W + 146}" y="39" fill="${COLORS.text}">current (median)</text>`,
    `<rect x="${LABEL_W + 260}" y="30" width="12" height="10" fill="${COLORS.regressed}"/><text x="${LABEL_W + 276}" y="39" fill="${COLORS.text}">regression</text>`,
  );
  for (const tick of ticks) {
    parts.push(
      `<line x1="${x(tick).toFixed(1)}" y1="${TOP - 4}" x2="${x(tick).toFixed(1)}" y2="${TOP + plotH}" stroke="${COLORS.grid}"/>`,
      `<text x="${x(tick).toFixed(1)}" y="${TOP + plotH + 14}" text-anchor="middle" fill="${COLORS.text}">${escapeXml(format(tick))}</text>`,
    );
  }
  parts.push(
    `<line x1="${LABEL_W}" y1="${TOP + plotH}" x2="${LABEL_W + PLOT_W}" y2="${TOP + plotH}" stroke="${COLORS.text}"/>`,
    `<text x="${LABEL_W + PLOT_W / 2}" y="${TOP + plotH + 36}" text-anchor="middle" fill="${COLORS.text}">${escapeXml(chart.axisLabel)}</text>`,
  );
  if (chart.rows.length === 0) {
    parts.push(`<text x="${LABEL_W}" y="${TOP + 14}" fill="${COLORS.text}">no figures to compare</text>`);
  }
  chart.rows.forEach((row, i) => {
    const y = TOP + i * ROW_H;
    parts.push(
      `<text x="${LABEL_W - 8}" y="${y + BAR_H + 4}" text-anchor="end" fill="${COLORS.text}">${escapeXml(row.label)}</text>`,
    );
    const bars: [number | undefined, string, number][] = [
      [row.baseline, COLORS.baseline, y + 2],
      [row.current, row.regressed ? COLORS.regressed : COLORS.current, y + 2 + BAR_H],
    ];
    for (const [value, color, by] of bars) {
      if (value === undefined) {
        parts.push(`<text x="${LABEL_W + 4}" y="${by + BAR_H - 1}" fill="${COLORS.text}">n/a</text>`);
        continue;
      }
      const w = Math.max(0, x(value) - LABEL_W);
      parts.push(
        `<rect x="${LABEL_W}" y="${by}" width="${w.toFixed(1)}" height="${BAR_H - 1}" fill="${color}"/>`,
        `<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${by + BAR_H - 1}" fill="${COLORS.text}">${escapeXml(format(value))}</text>`,
      );
    }
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export interface LineChart {
  title: string;
  /** One point per run, in order; undefined where a run lacks the figure. */
  values: (number | undefined)[];
  /** Indices of the first run after each change point: drawn as vertical red lines. */
  changes: number[];
  format?: (value: number) => string;
}

/** A trend line over runs (x: run number) with change points marked; self-contained like the bars. */
export function renderLineChart(c: LineChart): string {
  const width = 640;
  const height = 200;
  const left = 70;
  const right = 20;
  const top = 30;
  const bottom = 30;
  const fmt = c.format ?? ((v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2)));
  const present = c.values.filter((v): v is number => v !== undefined);
  const lo = Math.min(...present, 0);
  const hi = Math.max(...present, lo + 1e-9);
  const n = Math.max(1, c.values.length - 1);
  const x = (i: number) => left + (i / n) * (width - left - right);
  const y = (v: number) => top + (1 - (v - lo) / (hi - lo)) * (height - top - bottom);
  const points = c.values
    .map((v, i) => (v === undefined ? undefined : `${x(i).toFixed(1)},${y(v).toFixed(1)}`))
    .filter((p): p is string => p !== undefined);
  const changeLines = c.changes
    .map((i) => {
      const at = (x(i - 1) + x(i)) / 2;
      return `<line x1="${at.toFixed(1)}" x2="${at.toFixed(1)}" y1="${top}" y2="${height - bottom}" stroke="${COLORS.regressed}" stroke-dasharray="4 3"/>`;
    })
    .join('');
  const dots = c.values
    .map((v, i) =>
      v === undefined
        ? ''
        : `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="2.5" fill="${COLORS.current}"/>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">` +
    `<text x="${left}" y="16" font-size="13" fill="${COLORS.text}">${escapeXml(c.title)}</text>` +
    `<line x1="${left}" x2="${width - right}" y1="${y(lo)}" y2="${y(lo)}" stroke="${COLORS.grid}"/>` +
    `<line x1="${left}" x2="${width - right}" y1="${y(hi)}" y2="${y(hi)}" stroke="${COLORS.grid}"/>` +
    `<text x="${left - 6}" y="${y(hi) + 4}" text-anchor="end" fill="${COLORS.text}">${escapeXml(fmt(hi))}</text>` +
    `<text x="${left - 6}" y="${y(lo) + 4}" text-anchor="end" fill="${COLORS.text}">${escapeXml(fmt(lo))}</text>` +
    `<text x="${left}" y="${height - 8}" fill="${COLORS.text}">run 1</text>` +
    `<text x="${width - right}" y="${height - 8}" text-anchor="end" fill="${COLORS.text}">run ${c.values.length}</text>` +
    changeLines +
    `<polyline points="${points.join(' ')}" fill="none" stroke="${COLORS.current}" stroke-width="1.5"/>` +
    dots +
    '</svg>'
  );
}

/** An SVG chart for embedding in an HTML page (no xmlns attribute: HTML5 knows svg). */
export function inlineSvg(svg: string): string {
  return svg.replace(' xmlns="http://www.w3.org/2000/svg"', '');
}

/** The page both perf reports share (compare, history): title, the base style plus `style`, body. */
export function perfPage(title: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeXml(title)}</title>
<style>
body { font-family: sans-serif; margin: 2em; color: #202124; }
${style.trim()}
</style>
</head>
<body><main>
${body.trim()}
</main></body>
</html>
`;
}

/** One line of an x–y chart (points joined in x order, each marked). */
export interface XYSeries {
  name: string;
  color: string;
  points: Array<{ x: number; y: number }>;
  dashed?: boolean;
}

export interface XYChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: XYSeries[];
  /** Vertical markers (the knee), horizontal markers (an SLO limit). */
  vMarkers?: Array<{ x: number; label: string; color?: string }>;
  hMarkers?: Array<{ y: number; label: string; color?: string }>;
  format?: (value: number) => string;
}

const XY = { width: 860, height: 340, left: 70, right: 170, top: 40, bottom: 50 };

/** An x–y line chart as a self-contained SVG string (no scripts, fonts or links), axes from 0. */
export function renderXYChart(chart: XYChart): string {
  const format = chart.format ?? defaultFormat;
  const xs = [
    ...chart.series.flatMap((s) => s.points.map((p) => p.x)),
    ...(chart.vMarkers ?? []).map((m) => m.x),
  ];
  const ys = [
    ...chart.series.flatMap((s) => s.points.map((p) => p.y)),
    ...(chart.hMarkers ?? []).map((m) => m.y),
  ];
  const xTicks = niceTicks(Math.max(0, ...xs.filter(Number.isFinite)));
  const yTicks = niceTicks(Math.max(0, ...ys.filter(Number.isFinite)));
  const xMax = xTicks[xTicks.length - 1]!;
  const yMax = yTicks[yTicks.length - 1]!;
  const plotW = XY.width - XY.left - XY.right;
  const plotH = XY.height - XY.top - XY.bottom;
  const x = (v: number) => XY.left + (xMax > 0 ? (v / xMax) * plotW : 0);
  const y = (v: number) => XY.top + plotH - (yMax > 0 ? (v / yMax) * plotH : 0);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${XY.width}" height="${XY.height}" viewBox="0 0 ${XY.width} ${XY.height}" role="img" aria-label="${escapeXml(chart.title)}" font-family="sans-serif" font-size="11">`,
    `<title>${escapeXml(chart.title)}</title>`,
    `<rect width="${XY.width}" height="${XY.height}" fill="#fff"/>`,
    `<text x="${XY.left}" y="22" font-size="14" font-weight="bold" fill="${COLORS.text}">${escapeXml(chart.title)}</text>`,
  ];
  for (const t of yTicks) {
    out.push(
      `<line x1="${XY.left}" x2="${XY.left + plotW}" y1="${y(t)}" y2="${y(t)}" stroke="${COLORS.grid}"/>`,
      `<text x="${XY.left - 6}" y="${y(t) + 4}" text-anchor="end" fill="${COLORS.text}">${escapeXml(format(t))}</text>`,
    );
  }
  for (const t of xTicks) {
    out.push(
      `<line x1="${x(t)}" x2="${x(t)}" y1="${XY.top}" y2="${XY.top + plotH}" stroke="${COLORS.grid}"/>`,
      `<text x="${x(t)}" y="${XY.top + plotH + 16}" text-anchor="middle" fill="${COLORS.text}">${escapeXml(format(t))}</text>`,
    );
  }
  out.push(
    `<text x="${XY.left + plotW / 2}" y="${XY.height - 10}" text-anchor="middle" fill="${COLORS.text}">${escapeXml(chart.xLabel)}</text>`,
    `<text x="14" y="${XY.top + plotH / 2}" text-anchor="middle" fill="${COLORS.text}" transform="rotate(-90 14 ${XY.top + plotH / 2})">${escapeXml(chart.yLabel)}</text>`,
  );
  for (const m of chart.hMarkers ?? []) {
    const c = m.color ?? COLORS.regressed;
    out.push(
      `<line x1="${XY.left}" x2="${XY.left + plotW}" y1="${y(m.y)}" y2="${y(m.y)}" stroke="${c}" stroke-dasharray="6 4"/>`,
      `<text x="${XY.left + plotW + 6}" y="${y(m.y) + 4}" fill="${c}">${escapeXml(m.label)}</text>`,
    );
  }
  for (const m of chart.vMarkers ?? []) {
    const c = m.color ?? COLORS.text;
    out.push(
      `<line x1="${x(m.x)}" x2="${x(m.x)}" y1="${XY.top}" y2="${XY.top + plotH}" stroke="${c}" stroke-width="1.5" stroke-dasharray="3 3"/>`,
      `<text x="${x(m.x) + 4}" y="${XY.top + 12}" fill="${c}">${escapeXml(m.label)}</text>`,
    );
  }
  chart.series.forEach((s, i) => {
    const pts = s.points
      .filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y))
      .sort((a, b) => a.x - b.x);
    if (pts.length > 1) {
      const d = pts
        .map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`)
        .join(' ');
      out.push(
        `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 3"' : ''}/>`,
      );
    }
    for (const p of pts)
      out.push(`<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="3" fill="${s.color}"/>`);
    const ly = XY.top + 30 + i * 16;
    out.push(
      `<rect x="${XY.left + plotW + 10}" y="${ly - 8}" width="12" height="3" fill="${s.color}"/>`,
      `<text x="${XY.left + plotW + 26}" y="${ly - 3}" fill="${COLORS.text}">${escapeXml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}
