/**
 * The badge a vendor puts in its README or CI: "Speak v1 | P/M MUST · strict" as a self-contained SVG
 * (no fonts or links), and the same as a shields.io endpoint file
 * (https://shields.io/badges/endpoint-badge) beside it. The counts are the run's: P MUST requirements
 * passed of the run's M MUST requirements, the M of the `judged: J of M MUST` line: a MUST failed,
 * blocked or not judged is not passed, so only a run that judged and passed every MUST shows M/M (a
 * selection says "subset"). docs/testing-a-server.md says the same (test/docs/docs-drift.test.ts).
 */
import { isGatingFailure, isHeld } from '../verdict/standing.ts';
import type { ConformanceReport } from './model.ts';

export interface Badge {
  label: string;
  message: string;
  /** Hex colour of the message side. */
  color: string;
  mustPassed: number;
  mustTotal: number;
}

const GREEN = '#1a7f37';
const RED = '#cf222e';
const AMBER = '#9a6700';

export function badgeOf(report: Pick<ConformanceReport, 'requirements' | 'run'>): Badge {
  const musts = report.requirements.filter((r) => r.level === 'MUST');
  const mustPassed = musts.filter(isHeld).length;
  // Where security checks gate (the standing says): a leak is red however many MUSTs passed.
  const mustFailed = report.requirements.some(
    (r) => (r.level === 'MUST' || r.level === 'SECURITY') && isGatingFailure(r, report.run.profile),
  );
  const subset = report.run.only.length > 0 || (report.run.requirements?.length ?? 0) > 0;
  const color = report.run.exitCode === 0 && mustPassed === musts.length ? GREEN : mustFailed ? RED : AMBER;
  return {
    label: 'Speak v1',
    message: `${mustPassed}/${musts.length} MUST · ${report.run.profile}${subset ? ' · subset' : ''}`,
    color,
    mustPassed,
    mustTotal: musts.length,
  };
}

/** shields.io endpoint JSON: `https://img.shields.io/endpoint?url=<where this file is served>`. */
export function badgeEndpointJson(b: Badge): string {
  return `${JSON.stringify({ schemaVersion: 1, label: b.label, message: b.message, color: b.color.replace('#', '') })}\n`;
}

function escapeXml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** Verdana 11px is about 6.5 px per character; the text is also squeezed to fit with textLength. */
function textWidth(text: string): number {
  return Math.round(text.length * 6.5) + 12;
}

export function renderBadgeSvg(b: Badge): string {
  const lw = textWidth(b.label);
  const mw = textWidth(b.message);
  const w = lw + mw;
  const label = escapeXml(b.label);
  const message = escapeXml(b.message);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" role="img" aria-label="${label}: ${message}"><title>${label}: ${message}</title>
<rect width="${lw}" height="20" rx="3" fill="#555"/><rect x="${lw}" width="${mw}" height="20" rx="3" fill="${b.color}"/><rect x="${lw}" width="4" height="20" fill="${b.color}"/>
<g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11" text-anchor="middle"><text x="${lw / 2}" y="14" textLength="${lw - 12}">${label}</text><text x="${lw + mw / 2}" y="14" textLength="${mw - 12}">${message}</text></g></svg>`;
}
