/**
 * The compiled CLI: bin/speakcheck.js runs the TypeScript sources as one esbuild bundle in
 * `dist/<hash>/` instead of through tsx at run time. Measured on the 2-core machine: tsx costs each
 * Node process ~0.3 s to register and ~1 s more to load the API's modules (1.4 s vs 0.26 s, 115 vs
 * 48 MB RSS), and every process and espeak thread that loads it gets a hooks thread of its own; the
 * embedded stack alone is five such processes and threads on its critical path.
 *
 * No build step to remember: the bundle is a cache of the sources. Each start hashes the files the
 * last bundle was made from (listed in dist/manifest.json, ~15 ms); when one changed (an edit, a
 * checkout, a fresh clone), it bundles again (~0.3 s) and switches atomically, so concurrent starts
 * never see a half-written bundle. When esbuild is missing, dist/ is not writable or the build fails,
 * or SPEAKCHECK_TSX=1 is set, the CLI runs the sources through tsx as before (a syntax error is then
 * reported by tsx with the source's line).
 *
 * Paths stay right in the bundle: every `import.meta.url` of a bundled module is rewritten to the URL
 * of its source file (relative to the bundle, so the clone can move), so files found beside a source
 * (schemas/*.json, suites, package.json) are found as before. Only reference/entry-points.ts keeps
 * the bundle's own URL: it is how the stack finds its bundled worker-process and espeak-thread entries.
 * Plain JavaScript: it runs before any TypeScript loader.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DIST = join(ROOT, 'dist');
const MANIFEST = join(DIST, 'manifest.json');
const SELF = 'src/cli/bundle.mjs';
/** Entry name in dist/<hash>/ → source. */
export const ENTRIES = {
  cli: 'src/cli/main.ts',
  'worker-main': 'reference/worker/main.ts',
  'espeak-thread': 'reference/synth/espeak-thread.ts',
};
/** The one module whose import.meta.url stays the bundle's own. */
const KEEPS_OWN_URL = 'reference/entry-points.ts';
/** A bundle directory no longer current is removed after this long: a stack still running from it
 *  forks its workers and espeak threads from there (a restarted worker too). ~1.6 MB each. */
const STALE_AFTER_MS = 24 * 3600_000;

/** URL of the bundled CLI, built when the sources changed; undefined: run the sources through tsx. */
export async function bundledCli() {
  if (process.env.SPEAKCHECK_TSX === '1') return undefined;
  const current = currentBundle();
  if (current) return pathToFileURL(join(DIST, current, 'cli.js')).href;
  try {
    return pathToFileURL(join(DIST, await build(), 'cli.js')).href;
  } catch (error) {
    if (process.env.SPEAKCHECK_DEBUG_BUNDLE === '1') process.stderr.write(`speakcheck: bundle: ${error}\n`);
    return undefined;
  }
}

/** The hash directory of the manifest when its sources are unchanged. */
function currentBundle() {
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
    if (hashSources(manifest.inputs) !== manifest.hash) return undefined;
    statSync(join(DIST, manifest.hash, 'cli.js'));
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

/** Bundles ENTRIES into dist/<hash>/ (hash of every source the bundle holds); returns the hash. */
export async function build() {
  const { build: esbuild } = await import('esbuild');
  const started = Date.now();
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: Object.entries(ENTRIES).map(([out, input]) => ({ in: input, out })),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: join(DIST, 'out'),
    chunkNames: 'chunk-[hash]',
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    // Stack traces name the sources with NODE_OPTIONS=--enable-source-maps (or run SPEAKCHECK_TSX=1).
    sourcemap: 'linked',
    plugins: [sourceUrlPlugin()],
  });
  // This file too: a change of how the bundle is made makes a new one.
  const inputs = [
    ...Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/')),
    SELF,
  ].sort();
  // A source edited while esbuild read it: use this bundle once, but do not record it as current.
  const settled = inputs.every((file) => statSync(join(ROOT, file)).mtimeMs < started);
  const hash = hashSources(inputs);
  const target = join(DIST, hash);
  const temporary = join(DIST, `${hash}.tmp-${process.pid}`);
  mkdirSync(temporary, { recursive: true });
  for (const file of result.outputFiles) {
    writeFileSync(join(temporary, relative(join(DIST, 'out'), file.path)), file.contents);
  }
  try {
    renameSync(temporary, target);
  } catch {
    rmSync(temporary, { recursive: true, force: true }); // another start made the same bundle first
  }
  if (settled) {
    const manifestTemp = `${MANIFEST}.tmp-${process.pid}`;
    writeFileSync(manifestTemp, `${JSON.stringify({ hash, inputs }, null, 1)}\n`);
    renameSync(manifestTemp, MANIFEST);
  }
  removeStale(hash);
  return hash;
}

/** import.meta.url → the source file's URL, relative to the bundle directory (dist/<hash>/). */
function sourceUrlPlugin() {
  return {
    name: 'speakcheck-source-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        const path = relative(ROOT, args.path).split(sep).join('/');
        if (path === KEEPS_OWN_URL || !source.includes('import.meta.url')) return undefined;
        const fromBundle = JSON.stringify(`../../${path}`);
        return {
          contents: source.replaceAll('import.meta.url', `new URL(${fromBundle}, import.meta.url).href`),
          loader: 'ts',
        };
      });
    },
  };
}

function removeStale(keep) {
  for (const entry of readdirSync(DIST)) {
    if (entry === keep || entry === 'manifest.json') continue;
    const path = join(DIST, entry);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_AFTER_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // removed by another start meanwhile
    }
  }
}
