/**
 * The layers of speakcheck and the trees beside them (`npm run lint:layers`, part of `npm run check`;
 * test/lint/layers.int.test.ts proves each rule catches what it should). A module may import its own
 * layer and the layers below it, never one above, and no import may close a cycle — type-only
 * imports included, since a cycle of types still ties the modules' meanings together.
 *
 * The order, lowest first, and why each layer sits where it does:
 *   schemas       the wire types and JSON schemas: the one thing harness, reference and k6 share.
 *   base          src/errors.ts, src/exit-codes.ts, src/version.ts: definitions every layer uses.
 *   evidence      src/evidence/ (redact, evidence): the secret redactor and the evidence recorder,
 *                 process-wide records that config, client, harness, report and run all write to.
 *   figures       src/figures/ (stats, svg-chart): numbers and charts, no project imports;
 *                 shared by load/, perf/ and the bench command.
 *   requirements  src/requirements/: the catalogue, pure data; everything above names its ids.
 *   config        src/config/: the run's typed configuration and its resolution from flags, env and
 *                 files (it names requirements, e.g. --requirements and the expect file).
 *   facts         src/facts/ (run-facts, outages): what the run learned once (a stuck take, a route
 *                 that never serves, a silent websocket), one JSON-lines file shared by every thread
 *                 of the run; the client, harness, report and run consult it, so below client.
 *   client        src/client/: HTTP, websocket and webhook-sink clients of a Speak server; the
 *                 webhook sink takes its listen address from the config, hence above config.
 *   checks        src/checks/: named judgments of what the client observed (they read its
 *                 exchanges, streamed requests and WAV headers), so above client.
 *   verdict       src/verdict/ (verdict, expectations, sdk-profile): a run's verdict from the
 *                 catalogue, the profile (config) and the tallies the checks produced.
 *   stack         src/stack/: starting the embedded or container reference stack as a process
 *                 (it never imports reference/: the CLI hands the entry point over).
 *   harness       src/harness/: the vitest side of a conformance run (covers, check, context,
 *                 global setup that starts a stack target).
 *   fixtures      fixtures/: test data and property generators the suites use.
 *   suites        suites/: the conformance suites, leaves run by vitest (nothing imports them).
 *   report        src/report/: the reporter and the pages, from what the harness left in the task
 *                 meta (harness/meta.ts) and the verdict.
 *   compare       src/compare/: conformance runs side by side (their conformance.json, read with the
 *                 report's model), so above report; nothing but the cli uses it.
 *   run           src/run/: one conformance run (preflight, stack, vitest, report, verdict).
 *   load          src/load/: k6 load runs and the capacity search against a stack target.
 *   perf, bench   src/perf/, src/bench/: comparisons of load runs, benchmarks of the stack.
 *   cli           src/cli/: the composition root, the only part of src/ that wires in reference/.
 *   bin           bin/, scripts/: entry points.
 * Beside them: reference/ (the reference server) and load/ (the k6 scripts) import only themselves
 * and schemas/; the same boundaries are linted by biome (biome.json overrides), this states them
 * once more for the modules biome's glob rules do not see (e.g. fixtures/, bin/).
 * A new folder of src/ must be given a place here: a module in no layer is an error.
 */

/** Lowest first. */
const LAYERS = [
  ['schemas', '^schemas/'],
  ['base', '^src/(errors|exit-codes|version)\\.ts$'],
  ['evidence', '^src/evidence/'],
  ['figures', '^src/figures/'],
  ['requirements', '^src/requirements/'],
  ['config', '^src/config/'],
  ['facts', '^src/facts/'],
  ['client', '^src/client/'],
  ['checks', '^src/checks/'],
  ['verdict', '^src/verdict/'],
  ['stack', '^src/stack/'],
  ['harness', '^src/harness/'],
  ['fixtures', '^fixtures/'],
  ['suites', '^suites/'],
  ['report', '^src/report/'],
  ['compare', '^src/compare/'],
  ['run', '^src/run/'],
  ['load', '^src/load/'],
  ['perf-bench', '^src/(perf|bench)/'],
  ['cli', '^src/cli/'],
  ['bin', '^(bin|scripts)/'],
];

const anyOf = (paths) => `(${paths.join('|')})`;
const LAYERED = anyOf(LAYERS.map(([, path]) => path));

/** One rule per layer: nothing it imports may belong to a layer above it. */
const upwardRules = LAYERS.slice(0, -1).map(([name, path], index) => {
  const above = LAYERS.slice(index + 1);
  return {
    name: `layer-${name}-imports-upward`,
    severity: 'error',
    comment: `${name} may import only itself and the layers below it; above it: ${above.map(([n]) => n).join(', ')} (order: .dependency-cruiser.cjs)`,
    from: { path },
    to: { path: anyOf(above.map(([, p]) => p)) },
  };
});

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'an import cycle ties modules together so neither can change or be understood alone',
      from: {},
      to: { circular: true },
    },
    ...upwardRules,
    {
      name: 'module-in-no-layer',
      severity: 'error',
      comment: 'every module of src/ belongs to a layer: give its folder a place in LAYERS',
      from: { path: '^src/', pathNot: LAYERED },
      to: {},
    },
    {
      name: 'import-of-module-in-no-layer',
      severity: 'error',
      comment: 'every module of src/ belongs to a layer: give its folder a place in LAYERS',
      from: {},
      to: { path: '^src/', pathNot: LAYERED },
    },
    {
      name: 'reference-imports-only-reference-and-schemas',
      severity: 'error',
      comment: 'reference/ meets the harness and the load tester only through schemas/ and the wire',
      from: { path: '^reference/' },
      to: { path: '^(src|suites|fixtures|load|bin|scripts|test)/' },
    },
    {
      name: 'k6-scripts-import-only-load-and-schemas',
      severity: 'error',
      comment: 'load/ (k6 scripts) meets src/ and reference/ only through schemas/',
      from: { path: '^load/' },
      to: { path: '^(src|suites|fixtures|reference|bin|scripts|test)/' },
    },
    {
      name: 'only-the-cli-wires-in-reference',
      severity: 'error',
      comment:
        'harness code never imports reference/: the two meet through schemas/ and HTTP; only src/cli/ (the composition root) starts the reference stack',
      from: { path: '^(src|suites|fixtures|schemas|bin|scripts)/', pathNot: '^src/cli/' },
      to: { path: '^reference/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
