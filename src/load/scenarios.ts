/** The load scenarios shipped in load/scenarios/, one k6 script each. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../stack/embedded.ts';

export const SCENARIOS = ['ttfc-websocket', 'ttfb-wav', 'throughput-rest', 'ramp'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export function isScenario(name: string): name is ScenarioName {
  return (SCENARIOS as readonly string[]).includes(name);
}

export function scenarioScript(name: ScenarioName): string {
  const path = join(REPO_ROOT, 'load', 'scenarios', `${name}.ts`);
  if (!existsSync(path)) throw new Error(`scenario script ${path} is missing`);
  return path;
}
