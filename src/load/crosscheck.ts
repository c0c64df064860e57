/**
 * Cross-check of k6's websocket time to first frame (speak_ws_first_frame) against a Node measurement of the same kind of
 * requests, against the same server. The two alternate in rounds (Node, k6, Node, k6, ..., Node) so
 * that changing load on a shared machine does not favour either side; k6's raw samples come from its
 * JSON output (`--out json`), so both medians are exact medians over all samples.
 */
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { median } from '../figures/stats.ts';
import { REPO_ROOT } from '../stack/embedded.ts';
import { measureNodeTtfc } from './node-ws-ttfc.ts';
import { runId, runK6 } from './run-load.ts';
import { scenarioScript } from './scenarios.ts';
import { type TargetCredentials, withLoadTarget } from './target.ts';

export interface CrosscheckOptions extends TargetCredentials {
  /** Takes measured per side, spread over the rounds. */
  requests: number;
  /** k6 runs; Node runs one more (before, between and after). Default 3. */
  rounds?: number;
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

/** The values of one metric's points (optionally with a tag value) from a k6 `--out json` file. */
export async function readK6Points(
  path: string,
  metric: string,
  tags: Record<string, string> = {},
): Promise<number[]> {
  const values: number[] = [];
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  for await (const line of lines) {
    if (!line.includes(`"metric":"${metric}"`)) continue;
    const point = JSON.parse(line) as {
      type: string;
      metric: string;
      data?: { value: number; tags?: Record<string, string> };
    };
    if (point.type !== 'Point' || point.metric !== metric || !point.data) continue;
    if (Object.entries(tags).every(([k, v]) => point.data!.tags?.[k] === v)) values.push(point.data.value);
  }
  return values;
}

export async function runCrosscheck(o: CrosscheckOptions): Promise<CrosscheckResult> {
  const log = o.log ?? ((line: string) => console.log(line));
  const mode = o.mode ?? 'chunks';
  const rounds = Math.max(1, o.rounds ?? 3);
  const run = runId('crosscheck');
  const runDir = o.outDir ?? join(REPO_ROOT, 'reports', 'load', run);
  return withLoadTarget(o, runDir, log, async ({ k6, target, stack, secrets, vars: targetVars }) => {
    mkdirSync(runDir, { recursive: true });
    const nodeOptions = { ...target, mode };
    const perNodeRun = Math.max(1, Math.ceil(o.requests / (rounds + 1)));
    const perK6Run = Math.max(1, Math.ceil(o.requests / rounds));

    const nodeSamples: number[] = [];
    const nodeFailures: string[] = [];
    const k6Samples: number[] = [];
    let k6Failures = 0;
    let k6Exit = 0;
    const nodeRound = async () => {
      log(`node: ${perNodeRun} ${mode} takes`);
      const r = await measureNodeTtfc({ ...nodeOptions, requests: perNodeRun });
      nodeSamples.push(...r.samples);
      nodeFailures.push(...r.failures);
      for (const failure of r.failures) log(`node: ${failure}`);
    };
    await nodeRound();
    for (let round = 1; round <= rounds; round++) {
      log(`k6 (round ${round}/${rounds}): ${perK6Run} ${mode} takes over one connection`);
      const points = join(runDir, `k6-points-${round}.json`);
      const vars: Record<string, string> = {
        ...targetVars,
        SUMMARY_DIR: runDir,
        MODES: mode,
        VUS: '1',
        ITERATIONS: '1',
        REQUESTS_PER_CONNECTION: String(perK6Run),
        DURATION: '120s',
        // The cross-check compares measurements; the latency targets are judged by the real scenario.
        TTFC_CHUNKS_P50_MS: '100000',
        TTFC_CHUNKS_P95_MS: '100000',
        TTFC_PARTS_P95_MS: '100000',
        END_P95_MS: '100000',
      };
      const exit = await runK6(k6, scenarioScript('ttfc-websocket'), vars, secrets, {
        timeoutMs: 300_000,
        tag: `${run}-${round}`,
        log,
        extraArgs: ['--out', `json=${points}`],
      });
      if (exit !== 0) k6Exit = exit;
      k6Samples.push(...(await readK6Points(points, 'speak_ws_first_frame', { mode })));
      k6Failures += (await readK6Points(points, 'speak_ws_errors', { mode })).filter((v) => v !== 0).length;
      await nodeRound();
    }
    if (k6Samples.length === 0 || nodeSamples.length === 0) {
      return {
        exitCode: k6Exit || 1,
        runDir,
        reason: `no samples (k6: ${k6Samples.length}, node: ${nodeSamples.length})`,
      };
    }
    const k6MedianMs = median(k6Samples);
    const nodeMedianMs = median(nodeSamples);
    const result: CrosscheckResult = {
      exitCode: k6Exit,
      runDir,
      k6MedianMs,
      nodeMedianMs,
      differenceMs: k6MedianMs - nodeMedianMs,
      k6Samples: k6Samples.length,
      nodeSamples: nodeSamples.length,
      k6Failures,
      nodeFailures: nodeFailures.length,
    };
    const round3 = (v: number) => Math.round(v * 1000) / 1000;
    writeFileSync(
      join(runDir, 'crosscheck.json'),
      JSON.stringify(
        { mode, rounds, ...result, k6SamplesMs: k6Samples, nodeSamplesMs: nodeSamples.map(round3) },
        null,
        2,
      ),
    );
    writeFileSync(
      join(runDir, 'crosscheck.md'),
      [
        `# k6 vs Node: websocket time to first chunk (${mode} mode)`,
        '',
        `Target: ${stack ? 'embedded reference stack' : target.baseUrl}; ${rounds} k6 runs alternating with ${rounds + 1} Node runs.`,
        '',
        '| measured by | median TTFC | samples | failed takes |',
        '|---|---|---|---|',
        `| k6 (load/scenarios/ttfc-websocket.ts; Date.now(), 1 ms resolution) | ${k6MedianMs.toFixed(2)} ms | ${k6Samples.length} | ${k6Failures} |`,
        `| Node (ws client in src/load/node-ws-ttfc.ts; performance.now()) | ${nodeMedianMs.toFixed(2)} ms | ${nodeSamples.length} | ${nodeFailures.length} |`,
        '',
        `Median difference (k6 − Node): **${result.differenceMs!.toFixed(2)} ms**`,
        '',
      ].join('\n'),
    );
    return result;
  });
}
