/**
 * Writes conformance.json, conformance.md and conformance.html into the report directory, with the
 * badge (badge.svg) and its shields.io endpoint file (badge.json) beside them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runOutages } from '../facts/outages.ts';
import { outageWords } from '../verdict/words.ts';
import { badgeEndpointJson, badgeOf, renderBadgeSvg } from './badge.ts';
import { readContract } from './contract.ts';
import type { ConformanceReport } from './model.ts';
import { renderHtml } from './render-html.ts';
import { renderMarkdown } from './render-md.ts';
import { websocketModelOf, websocketScript } from './reproduction.ts';

export async function writeReport(dir: string, given: ConformanceReport): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  // The run's outages (src/facts), named once in every report: read here, where the run's facts are.
  const outages = given.outages ?? runOutages().map(outageWords);
  const report = outages.length > 0 ? { ...given, outages } : given;
  const files = {
    'conformance.json': `${JSON.stringify(report, null, 2)}\n`,
    'conformance.md': renderMarkdown(report),
    'conformance.html': renderHtml(report, { contract: readContract() }),
    'badge.svg': `${renderBadgeSvg(badgeOf(report))}\n`,
    'badge.json': badgeEndpointJson(badgeOf(report)),
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
  const written = Object.keys(files).map((name) => join(dir, name));
  return [...written, ...(await writeWebsocketReplays(dir, report))];
}

/** repro/<requirement>.mjs beside the reports, for every failed requirement that sent websocket requests. */
async function writeWebsocketReplays(dir: string, report: ConformanceReport): Promise<string[]> {
  const withWs = report.requirements.filter((r) => (r.reproduction?.websocket.length ?? 0) > 0);
  if (withWs.length === 0) return [];
  await mkdir(join(dir, 'repro'), { recursive: true });
  const files: string[] = [];
  for (const r of withWs) {
    const file = join(dir, 'repro', `${r.id}.mjs`);
    const repro = r.reproduction!;
    await writeFile(
      file,
      websocketScript(r.id, repro.websocket, {
        baseUrl: report.run.baseUrl,
        ...(report.run.authUrl ? { authUrl: report.run.authUrl } : {}),
        ...withModel(websocketModelOf([...repro.curl, ...repro.transcript])),
      }),
    );
    files.push(file);
  }
  return files;
}

const withModel = (model: string | undefined) => (model === undefined ? {} : { model });
