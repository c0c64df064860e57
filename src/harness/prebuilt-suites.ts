/**
 * The suites' modules prebuilt with the CLI (src/cli/bundle.mjs: `<hash>/suites/`, one JavaScript
 * module per source file of the layers the suites import, shared code in chunks), so that a run's
 * vitest transforms only the spec files: every module a spec imports from this repository resolves
 * to its prebuilt file, which vite-node leaves to Node's own import (externalized). Measured first
 * (issue 52, `bench --profile`): vite's transforms of ~240 modules (esbuild, the SSR transform, the
 * source maps combined) were ~0.6 CPU-s of the run's main thread and its esbuild service ~0.4 more.
 *
 * From the sources (vitest run directly, tsx, the harness's own tests) this module's URL is a `.ts`
 * file: no prebuilt modules, every module transformed as before. The bundle keeps this module's
 * import.meta.url its own (KEEPS_OWN_URL), so it finds `suites/` beside the CLI's chunks.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

export interface PrebuiltSuites {
  /** Resolves a spec's imports of this repository's modules to their prebuilt files. */
  plugin: Plugin;
  /** vite-node's externals (test.server.deps.external): the prebuilt files, imported by Node. */
  external: RegExp[];
  /** The prebuilt file of a source module (relative to the root, `/`-separated). */
  fileOf(source: string): string;
  /** The spec files served as JavaScript (vite's esbuild leaves them alone: none is left for it). */
  specs: RegExp;
}

/** Per root: a run asks twice (its vitest options, its vite options), the directory is listed once. */
const found = new Map<string, PrebuiltSuites | undefined>();

/** The prebuilt modules of the bundle this module runs from; undefined from the sources. */
export function prebuiltSuites(root: string): PrebuiltSuites | undefined {
  if (!found.has(root)) found.set(root, findPrebuilt(root));
  return found.get(root);
}

function findPrebuilt(root: string): PrebuiltSuites | undefined {
  if (!import.meta.url.endsWith('.js')) return undefined;
  const dir = fileURLToPath(new URL('./suites/', import.meta.url));
  if (!existsSync(dir)) return undefined;
  // A spec added since the bundle was made has no prebuilt file: vite transforms it as before.
  const served = specFiles(root, 'suites').filter((spec) => existsSync(join(dir, prebuiltName(spec))));
  return {
    plugin: prebuiltResolver(root, dir),
    external: [new RegExp(`^${escapeRegExp(dir)}`)],
    fileOf: (source) => join(dir, prebuiltName(source)),
    specs: new RegExp(`^(?:${served.map((spec) => escapeRegExp(join(root, spec))).join('|') || '(?!)'})$`),
  };
}

/** The spec files under `dir` (relative to the root, `/`-separated). */
function specFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.spec.ts'))
    .map((file) => `${dir}/${file.split(sep).join('/')}`);
}

/** Source path (relative to the root, `/`-separated, `.ts`) → prebuilt file name; as bundle.mjs names them. */
export function prebuiltName(source: string): string {
  return `${source.slice(0, -'.ts'.length).split('/').join('__')}.js`;
}

/**
 * A relative import of a `.ts` file under `root` (not a spec) that has a prebuilt file resolves to
 * it; anything else (packages, specs, a module the build did not hold) to what vite resolves. A
 * spec with a prebuilt file is loaded as its JavaScript, with its source map (the spec's own lines).
 */
export function prebuiltResolver(root: string, dir: string): Plugin {
  return {
    name: 'speakcheck-prebuilt-suites',
    enforce: 'pre',
    load(id) {
      const file = id.split('?')[0]!;
      const path = relative(root, file);
      if (isAbsolute(path) || path.startsWith('..') || !path.endsWith('.spec.ts')) return null;
      const prebuilt = join(dir, prebuiltName(path.split(sep).join('/')));
      if (!existsSync(prebuilt)) return null;
      const map = JSON.parse(readFileSync(`${prebuilt}.map`, 'utf8')) as {
        version: number;
        mappings: string;
        names: string[];
        sources: string[];
      };
      return { code: readFileSync(prebuilt, 'utf8'), map: { ...map, sources: [file] } };
    },
    resolveId(source, importer) {
      if (!importer || !(source.startsWith('./') || source.startsWith('../'))) return null;
      const target = resolve(dirname(importer.split('?')[0]!), source);
      const path = relative(root, target);
      if (isAbsolute(path) || path.startsWith('..') || !path.endsWith('.ts') || path.endsWith('.spec.ts')) {
        return null;
      }
      const prebuilt = join(dir, prebuiltName(path.split(sep).join('/')));
      return existsSync(prebuilt) ? prebuilt : null;
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
