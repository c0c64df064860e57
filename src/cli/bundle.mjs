/**
 * The compiled CLI: bin/speakcheck.js runs the TypeScript sources as one esbuild bundle instead of
 * through tsx at run time. Measured on the 2-core machine: tsx costs each Node process ~0.3 s to
 * register and ~1 s more to load the API's modules (1.4 s vs 0.26 s, 115 vs 48 MB RSS), and every
 * process and espeak thread that loads it gets a hooks thread of its own; the embedded stack alone
 * is five such processes and threads on its critical path.
 *
 * Two places a bundle comes from, and neither is written by a run inside the package:
 * - The package's own, `dist/<hash>/`, made when the package is made (`npm pack`/`npm publish` run
 *   `prepack`: `node src/cli/bundle.mjs --pack`): an installed speakcheck starts from plain
 *   JavaScript, with no esbuild, no tsx and no first-start bundling (and so no esbuild service).
 * - A clone's: made at the first start after an edit (the sources changed since the bundle in
 *   dist/, or there is none), in the cache directory (src/config/cache-dir.mjs), one per clone, so a
 *   read-only clone or one owned by another user runs too. No build step to remember.
 * Each start hashes the files the bundle was made from (its manifest.json lists them, ~15 ms); when
 * one changed it bundles again (~1 s with the suites' prebuilt modules) and switches atomically, so concurrent starts never see a
 * half-written bundle. When esbuild is missing, the cache cannot be written or the build fails, or
 * SPEAKCHECK_TSX=1 is set, the CLI runs the sources through tsx (a syntax error is then reported by
 * tsx with the source's line). The esbuild service a build starts is stopped right after it.
 *
 * Paths stay right in the bundle: every `import.meta.url` of a bundled module is rewritten to the URL
 * of its source file, so files found beside a source (schemas/*.json, suites, package.json) are found
 * as before: relative to the bundle in the package's dist/ (the package can move), absolute in the
 * cache (whose bundle is keyed by the clone's path). A cache bundle is outside the package, where
 * Node would not find the package's dependencies: its imports of packages are resolved at bundle
 * time to the files they name. Only reference/entry-points.ts and src/harness/prebuilt-suites.ts keep
 * the bundle's own URL: the first is how the stack finds its bundled worker-process and
 * espeak-thread entries, the second how a run finds the suites' prebuilt modules (`<hash>/suites/`).
 * Plain JavaScript: it runs before any TypeScript loader.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The package's bundle, made by `prepack`. */
const PACKED = join(ROOT, 'dist');
const SELF = 'src/cli/bundle.mjs';
/** Entry name in a bundle directory → source. */
export const ENTRIES = {
  cli: 'src/cli/main.ts',
  'worker-main': 'reference/worker/main.ts',
  'espeak-thread': 'reference/synth/espeak-thread.ts',
};
/**
 * The modules whose import.meta.url stays the bundle's own: how the stack finds its bundled
 * worker-process and espeak-thread entries, and how a run finds the suites' prebuilt modules.
 */
const KEEPS_OWN_URL = new Set(['reference/entry-points.ts', 'src/harness/prebuilt-suites.ts']);
/**
 * What the conformance suites import (the layers below suites/ in .dependency-cruiser.cjs, and the
 * suites' own support modules), prebuilt into `<hash>/suites/` as one module per source file (see
 * src/harness/prebuilt-suites.ts): a run's vitest then transforms only the spec files themselves.
 */
const SUITE_MODULE_DIRS = [
  'schemas',
  'src/evidence',
  'src/figures',
  'src/requirements',
  'src/config',
  'src/facts',
  'src/client',
  'src/checks',
  'src/verdict',
  'src/stack',
  'src/harness',
  'fixtures',
  'suites',
];
const SUITE_MODULE_FILES = ['src/errors.ts', 'src/exit-codes.ts', 'src/version.ts'];
/** A prebuilt suite module's file name in `<hash>/suites/`: its source path, flattened. */
export function prebuiltName(source) {
  return `${source.slice(0, -'.ts'.length).split('/').join('__')}.js`;
}
/** A bundle directory no longer current is removed after this long: a stack still running from it
 *  forks its workers and espeak threads from there (a restarted worker too). ~7 MB each with its maps. */
const STALE_AFTER_MS = 24 * 3600_000;

/** The cache's bundles of this clone: one directory per clone path. */
export function cacheBundleDir(cacheDir) {
  const clone = createHash('sha256').update(ROOT).digest('hex').slice(0, 12);
  return join(cacheDir, 'bundle', clone);
}

/**
 * URL of the bundled CLI: the package's when current, else the cache's (built when the sources
 * changed); undefined: run the sources through tsx.
 * @param {string | undefined} cacheDir where a clone's bundle goes (undefined: none can be written)
 */
export async function bundledCli(cacheDir) {
  if (process.env.SPEAKCHECK_TSX === '1') return undefined;
  const packed = currentBundle(PACKED);
  if (packed) return pathToFileURL(join(PACKED, packed, 'cli.js')).href;
  if (!cacheDir) return undefined;
  const dir = cacheBundleDir(cacheDir);
  const cached = currentBundle(dir);
  if (cached) return pathToFileURL(join(dir, cached, 'cli.js')).href;
  try {
    return pathToFileURL(join(dir, await build(dir, 'cache'), 'cli.js')).href;
  } catch (error) {
    if (process.env.SPEAKCHECK_DEBUG_BUNDLE === '1') process.stderr.write(`speakcheck: bundle: ${error}\n`);
    return undefined;
  }
}

/** The hash directory of `dir`'s manifest when its sources are unchanged. */
function currentBundle(dir) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    if (hashSources(manifest.inputs) !== manifest.hash) return undefined;
    statSync(join(dir, manifest.hash, 'cli.js'));
    return manifest.hash;
  } catch {
    return undefined;
  }
}

function hashSources(inputs) {
  const hash = createHash('sha256');
  for (const file of inputs) {
    hash.update(`\0${file}\0`);
    hash.update(readFileSync(join(ROOT, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * Bundles ENTRIES into `dir/<hash>/` and the suites' modules and specs into `dir/<hash>/suites/`
 * (hash of every source the bundle holds); returns the hash.
 * kind 'pack': the package's dist/ (source URLs relative, packages imported by name); 'cache': a
 * directory outside the package (source URLs absolute, packages imported by their resolved files).
 * @param {string} dir @param {'pack' | 'cache'} kind
 */
export async function build(dir, kind) {
  const esbuild = await import('esbuild');
  const started = Date.now();
  let result;
  let suites;
  let specs;
  // What every build shares; each names its entries, where they go and whether it bundles.
  const common = {
    absWorkingDir: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
  };
  /** A bundling build (`depth`: how far below the package's root its outputs are). */
  const bundling = (depth) => ({
    ...common,
    bundle: true,
    splitting: true,
    ...(kind === 'pack' ? { packages: 'external' } : {}),
    chunkNames: 'chunk-[hash]',
    legalComments: 'none',
    // A clone's stack traces name the sources with NODE_OPTIONS=--enable-source-maps (or run
    // SPEAKCHECK_TSX=1). The package's bundle has none: its maps were 1.6 of its 2.3 MB, for
    // traces that a bug report (conformance.json, the sentence) does not need.
    sourcemap: kind === 'pack' ? false : 'linked',
    plugins: [sourceUrlPlugin(kind, depth), ...(kind === 'cache' ? [resolvedPackagesPlugin()] : [])],
  });
  /** Each source its own entry in one flat directory (every module as deep as the next). */
  const flat = (sources) => sources.map((source) => ({ in: source, out: prebuiltName(source).slice(0, -3) }));
  try {
    result = await esbuild.build({
      ...bundling(2),
      entryPoints: Object.entries(ENTRIES).map(([out, input]) => ({ in: input, out })),
      outdir: join(dir, 'out'),
    });
    // The suites' modules, each its own entry; shared code in chunks, so a module has one instance
    // in a thread whichever spec imports it.
    suites = await esbuild.build({
      ...bundling(3),
      entryPoints: flat(suiteModules('modules')),
      outdir: join(dir, 'out', 'suites'),
    });
    // The specs themselves only made JavaScript, their imports kept: vitest still runs each spec as
    // a test file (its path, its source map), with no esbuild service of vite's to start for them.
    specs = await esbuild.build({
      ...common,
      bundle: false,
      entryPoints: flat(suiteModules('specs')),
      outdir: join(dir, 'out', 'suites'),
      sourcemap: 'external',
      sourcesContent: false,
    });
  } finally {
    // The service process esbuild started would otherwise live as long as this process (the run).
    await esbuild.stop();
  }
  // This file too: a change of how the bundle is made makes a new one.
  const inputs = [
    ...new Set([
      ...[result, suites, specs]
        .flatMap((r) => Object.keys(r.metafile.inputs))
        .filter((f) => !f.includes('node_modules/')),
      SELF,
    ]),
  ].sort();
  // A source edited while esbuild read it: use this bundle once, but do not record it as current.
  const settled = inputs.every((file) => statSync(join(ROOT, file)).mtimeMs < started);
  const hash = hashSources(inputs);
  const target = join(dir, hash);
  const temporary = join(dir, `${hash}.tmp-${process.pid}`);
  mkdirSync(temporary, { recursive: true });
  for (const file of [...result.outputFiles, ...suites.outputFiles, ...specs.outputFiles]) {
    const path = join(temporary, relative(join(dir, 'out'), file.path));
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.contents);
  }
  try {
    renameSync(temporary, target);
  } catch {
    rmSync(temporary, { recursive: true, force: true }); // another start made the same bundle first
  }
  if (settled || kind === 'pack') {
    const manifestTemp = join(dir, `manifest.json.tmp-${process.pid}`);
    writeFileSync(manifestTemp, `${JSON.stringify({ hash, inputs }, null, 1)}\n`);
    renameSync(manifestTemp, join(dir, 'manifest.json'));
  }
  removeStale(dir, hash, kind === 'pack' ? 0 : STALE_AFTER_MS);
  return hash;
}

/**
 * The suites' modules ('modules': every TypeScript source in SUITE_MODULE_DIRS and
 * SUITE_MODULE_FILES but the specs) or their specs ('specs'), without what the package leaves out
 * (package.json's `!` files: test data the suites never import; a bundle input missing from the
 * package would make its dist/ bundle never current).
 * @param {'modules' | 'specs'} which
 */
function suiteModules(which) {
  const found = which === 'modules' ? [...SUITE_MODULE_FILES] : [];
  const unpacked = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    .files.filter((pattern) => pattern.startsWith('!'))
    .map((pattern) => pattern.slice(1));
  const walk = (dir) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (unpacked.some((prefix) => path === prefix || `${path}/`.startsWith(prefix))) continue;
      if (entry.isDirectory()) walk(path);
      else if (
        path.endsWith('.ts') &&
        !path.endsWith('.d.ts') &&
        path.endsWith('.spec.ts') === (which === 'specs')
      )
        found.push(path);
    }
  };
  for (const dir of SUITE_MODULE_DIRS) walk(dir);
  return found.sort();
}

/**
 * import.meta.url → the source file's URL: relative ('pack': the output is `depth` directories
 * below the package's root, dist/<hash>/ or dist/<hash>/suites/), absolute ('cache').
 */
function sourceUrlPlugin(kind, depth) {
  return {
    name: 'speakcheck-source-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const path = relative(ROOT, args.path).split(sep).join('/');
        if (KEEPS_OWN_URL.has(path) || !source.includes('import.meta.url')) return undefined;
        const url =
          kind === 'pack'
            ? `new URL(${JSON.stringify(`${'../'.repeat(depth)}${path}`)}, import.meta.url).href`
            : JSON.stringify(pathToFileURL(args.path).href);
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/**
 * A cache bundle lives outside the package, where Node's lookup of `import 'fastify'` would find
 * nothing: each package import becomes the file URL esbuild resolves it to from the importing
 * source (Node's conditions: node, import/require, default). One that does not resolve (an
 * optional peer dependency that is not installed, testcontainers) stays as it is: it fails where it
 * is used, as from the sources.
 */
function resolvedPackagesPlugin() {
  return {
    name: 'speakcheck-resolved-packages',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.resolving || args.path.startsWith('node:')) return undefined;
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { resolving: true },
        });
        if (resolved.errors.length > 0 || !resolved.path) return { path: args.path, external: true };
        if (!resolved.path.includes(`${sep}node_modules${sep}`)) return undefined; // a source: bundle it
        return { path: pathToFileURL(resolved.path).href, external: true };
      });
    },
  };
}

function removeStale(dir, keep, afterMs) {
  for (const entry of readdirSync(dir)) {
    if (entry === keep || entry === 'manifest.json') continue;
    const path = join(dir, entry);
    try {
      if (Date.now() - statSync(path).mtimeMs >= afterMs) rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another start meanwhile
    }
  }
}

// `node src/cli/bundle.mjs --pack` (the package's prepack script): the package's dist/, afresh.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--pack')) {
  rmSync(PACKED, { recursive: true, force: true });
  mkdirSync(PACKED, { recursive: true });
  const hash = await build(PACKED, 'pack');
  process.stdout.write(`speakcheck: bundled ${Object.values(ENTRIES).join(', ')} into dist/${hash}/\n`);
}
