/**
 * The one place that decides whether a test may do without an external tool. On a developer's
 * machine a missing k6, container runtime, curl or Python SDK environment skips the tests that need
 * it, printing why. Where SPEAKCHECK_REQUIRE names the tool (.ci/run sets
 * SPEAKCHECK_REQUIRE=k6,container,curl,sdk) a missing tool fails instead, in one sentence naming it
 * and how to install it: a green CI cannot hide tests that never ran.
 */

/** How to get each tool, as the failure sentence says it. */
export const HOW_TO_INSTALL = {
  k6: 'run load/install-k6.sh (it builds the pinned k6 with Go >= 1.25 into .cache/k6/), or set K6_BIN to a k6 binary of that version',
  container:
    'start Docker, or set up podman with eval "$(../shared/tools/container-runtime.sh)" (it exports DOCKER_HOST)',
  curl: 'install curl (apt-get install curl)',
  sdk: 'install Python 3.10+ with the venv module and let pip reach PyPI (scripts/sdk-interop.sh installs the daisys SDK into .cache/)',
} as const;

export type Tool = keyof typeof HOW_TO_INSTALL;

export const REQUIRE_ENV = 'SPEAKCHECK_REQUIRE';

const isTool = (name: string): name is Tool => Object.hasOwn(HOW_TO_INSTALL, name);

/** A required tool is missing: the test fails with this, never skips. */
export class RequiredToolMissingError extends Error {
  override name = 'RequiredToolMissingError';
  constructor(
    readonly tool: Tool,
    problem: string,
  ) {
    super(missingToolSentence(tool, problem));
  }
}

/** The tools SPEAKCHECK_REQUIRE names (comma-separated); an unknown name is refused, not ignored. */
export function requiredTools(value: string | undefined = process.env[REQUIRE_ENV]): Set<Tool> {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isTool(name));
  if (unknown.length > 0)
    throw new Error(
      `${REQUIRE_ENV} names an unknown tool (${unknown.join(', ')}): the known ones are ${Object.keys(HOW_TO_INSTALL).join(', ')}`,
    );
  return new Set(names as Tool[]);
}

/** One sentence: which tool, why it is missing, how to install it. */
export function missingToolSentence(tool: Tool, problem: string): string {
  return `${tool} is required here (${REQUIRE_ENV}) but missing: ${problem.replace(/[.\s]+$/, '')}; to install it, ${HOW_TO_INSTALL[tool]}.`;
}

/**
 * Whether the tests needing `tool` run. `problem` says why the tool is unusable (undefined: it is
 * there): then, when the tool is required, this throws RequiredToolMissingError; otherwise it
 * prints the reason and returns false, and the caller skips those tests.
 */
export function toolReady(
  tool: Tool,
  problem: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (problem === undefined) return true;
  if (requiredTools(env[REQUIRE_ENV]).has(tool)) throw new RequiredToolMissingError(tool, problem);
  console.warn(`${tool} missing, its tests are skipped: ${problem} (to install it, ${HOW_TO_INSTALL[tool]})`);
  return false;
}
