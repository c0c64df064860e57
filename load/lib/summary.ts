/**
 * handleSummary for every scenario: the full k6 summary data as JSON (for `speakcheck load` and
 * `speakcheck perf compare`) plus a compact text table on stdout. No remote jslib import: the runs
 * stay on loopback and work offline.
 */
import { envString } from './config.ts';
import { type SummaryData, textTable } from './text-table.ts';

export type { SummaryData };

/** Returns the handleSummary output: SUMMARY_DIR/summary.json (when set) and the text table. */
export function writeSummary(
  data: SummaryData,
  scenario: string,
  extra: Record<string, unknown> = {},
): Record<string, string> {
  // setup_data holds worker addresses with their secrets: it never goes into a report. Only the
  // warm-up's account is kept, beside the figures it was kept out of.
  // The voice id is no secret and says what was spoken with: runs compared should share it.
  const { setup_data: setupData, ...rest } = data as SummaryData & {
    setup_data?: { warmup?: unknown; voiceId?: string; voiceSource?: string };
  };
  const warmup = setupData?.warmup === undefined ? {} : { warmup: setupData.warmup };
  const voice =
    setupData?.voiceId === undefined
      ? {}
      : { voice: { id: setupData.voiceId, source: setupData.voiceSource } };
  const out: SummaryData = { ...rest, speakcheck: { scenario, ...warmup, ...voice, ...extra } };
  const dir = envString('SUMMARY_DIR', '');
  const files: Record<string, string> = { stdout: `\n== ${scenario}\n${textTable(out)}` };
  if (dir) files[`${dir}/summary.json`] = JSON.stringify(out, null, 2);
  return files;
}
