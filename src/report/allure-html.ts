/**
 * `run --allure-html`: the Allure HTML report from the raw results the allure-vitest reporter wrote
 * into the report directory, made by the allure CLI when it is installed (speakcheck does not ship
 * it). Returns the line the run prints about it.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** How long `allure generate` may take. */
const GENERATE_BOUND_MS = 120_000;

export function generateAllureHtml(reportDir: string): string {
  const probe = spawnSync('allure', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return `allure HTML: the allure CLI is not installed; the raw results are in ${join(reportDir, 'allure-results')} (allure generate them elsewhere).`;
  }
  const target = join(reportDir, 'allure-report');
  const generated = spawnSync(
    'allure',
    ['generate', join(reportDir, 'allure-results'), '-o', target, '--clean'],
    { encoding: 'utf8', timeout: GENERATE_BOUND_MS },
  );
  return generated.status === 0
    ? `allure HTML: ${target}`
    : `allure HTML: allure generate failed: ${generated.stderr.trim()}`;
}
