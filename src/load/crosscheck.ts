/**
 * Cross-check of k6's websocket time to first chunk against a Node measurement of the same kind of
 * requests, against the same server: Node, then k6, then Node again (so drift in the server over the
 * run does not favour either side). Reports both medians and their difference.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EmbeddedStack, REPO_ROOT, startEmbeddedStack } from '../stack/embedded.ts';
import { ensureK6, K6UnavailableError } from './k6-binary.ts';
import { measureNodeTtfc, median } from './node-ws-ttfc.ts';
import {
  EXIT_K6_UNAVAILABLE,
  EXIT_TARGET_UNAVAILABLE,
  runId,
  runK6,
  type TargetCredentials,
} from './run-load.ts';
import { scenarioScript } from './scenarios.ts';
import { readSummaryFile } from './summary.ts';

export interface CrosscheckOptions extends TargetCredentials {
  /** Requests per side (Node gets two halves, before and after k6). */
  requests: number;
  mode?: 'parts' | 'chunks';
  outDir?: string;
  log?: (line: string) => void;
}

export interface CrosscheckResult {
  exitCode: number;
  runDir: string;
  reason?: string;
  k6MedianMs?: number;
  nodeMedianMs?: number;
  /** k6 median minus Node median, in ms. */
  differenceMs?: number;
  k6Samples?: number;
  nodeSamples?: number;
  /** Takes that failed on each side (not measured). */
  k6Failures?: number;
  nodeFailures?: number;
}

export async function runCrosscheck(o: CrosscheckOptions): Promise<CrosscheckResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const mode = o.mode ?? 'chunks';
  const run = runId('crosscheck');
  const runDir = o.outDir ?? join(REPO_ROOT, 'reports', 'load', run);
  let k6: string;
  try {
    k6 = await ensureK6(log);
  } catch (err) {
    if (err instanceof K6UnavailableError)
      return { exitCode: EXIT_K6_UNAVAILABLE, runDir, reason: err.message };
    throw err;
  }
  let stack: EmbeddedStack | undefined;
  try {
    let target: TargetCredentials = o;
    if (!o.baseUrl) {
      try {
        stack = await startEmbeddedStack({ readyTimeoutMs: 60_000 });
      } catch (err) {
        return { exitCode: EXIT_TARGET_UNAVAILABLE, runDir, reason: (err as Error).message };
      }
      target = { ...o, baseUrl: stack.baseUrl, email: stack.email, password: stack.password };
    }
    const nodeOptions = { ...target, baseUrl: target.baseUrl!, mode };
    const half = Math.max(1, Math.ceil(o.requests / 2));
    log(`node: ${half} ${mode} takes`);
    const first = await measureNodeTtfc({ ...nodeOptions, requests: half });

    mkdirSync(runDir, { recursive: true });
    log(`k6: ${o.requests} ${mode} takes over one connection`);
    const vars: Record<string, string> = {
      BASE_URL: target.baseUrl!,
      SUMMARY_DIR: runDir,
      MODES: mode,
      VUS: '1',
      ITERATIONS: '1',
      REQUESTS_PER_CONNECTION: String(o.requests),
      DURATION: '120s',
      // The cross-check compares measurements; the latency targets are judged by the real scenario.
      TTFC_CHUNKS_P50_MS: '100000',
      TTFC_CHUNKS_P95_MS: '100000',
      TTFC_PARTS_P95_MS: '100000',
    };
    if (target.authUrl) vars.AUTH_URL = target.authUrl;
    if (target.model) vars.MODEL = target.model;
    const secrets: Record<string, string> = {};
    if (target.email) secrets.SPEAKCHECK_EMAIL = target.email;
    if (target.password) secrets.SPEAKCHECK_PASSWORD = target.password;
    if (target.token) secrets.SPEAKCHECK_TOKEN = target.token;
    const k6Exit = await runK6(k6, scenarioScript('ttfc-websocket'), vars, secrets, {
      timeoutMs: 300_000,
      tag: run,
      log,
    });

    log(`node: ${half} more ${mode} takes`);
    const second = await measureNodeTtfc({ ...nodeOptions, requests: half });
    const nodeSamples = [...first.samples, ...second.samples];
    const nodeFailures = [...first.failures, ...second.failures];
    for (const failure of nodeFailures) log(`node: ${failure}`);

    const summary = readSummaryFile(join(runDir, 'summary.json'));
    const k6Metric = summary.metrics[`speak_ws_ttfc{mode:${mode}}`];
    if (!k6Metric?.values.med) {
      return {
        exitCode: k6Exit || 1,
        runDir,
        reason: `k6 (exit ${k6Exit}) recorded no speak_ws_ttfc{mode:${mode}}`,
      };
    }
    const k6MedianMs = k6Metric.values.med;
    const nodeMedianMs = median(nodeSamples);
    const result: CrosscheckResult = {
      exitCode: k6Exit,
      runDir,
      k6MedianMs,
      nodeMedianMs,
      differenceMs: k6MedianMs - nodeMedianMs,
      k6Samples: k6Metric.values.count ?? 0,
      nodeSamples: nodeSamples.length,
      nodeFailures: nodeFailures.length,
      k6Failures: summary.metrics.speak_ws_errors?.values.passes ?? 0,
    };
    writeFileSync(
      join(runDir, 'crosscheck.json'),
      JSON.stringify(
        { mode, ...result, nodeSamplesMs: nodeSamples.map((v) => Math.round(v * 1000) / 1000) },
        null,
        2,
      ),
    );
    writeFileSync(
      join(runDir, 'crosscheck.md'),
      [
        `# k6 vs Node: websocket time to first chunk (${mode} mode)`,
        '',
        `Target: ${stack ? 'embedded reference stack' : target.baseUrl}`,
        '',
        '| measured by | median TTFC | samples | failed takes |',
        '|---|---|---|---|',
        `| k6 (load/scenarios/ttfc-websocket.ts; Date.now(), 1 ms resolution) | ${k6MedianMs.toFixed(2)} ms | ${result.k6Samples} | ${result.k6Failures} |`,
        `| Node (ws client in src/load/node-ws-ttfc.ts; performance.now()) | ${nodeMedianMs.toFixed(2)} ms | ${nodeSamples.length} | ${result.nodeFailures} |`,
        '',
        `Median difference (k6 − Node): **${result.differenceMs!.toFixed(2)} ms**`,
        '',
      ].join('\n'),
    );
    return result;
  } finally {
    await stack?.stop();
  }
}
