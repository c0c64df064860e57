/**
 * Which latitude switches are on in this process: off unless the stack was started with
 * `latitude: [...]` (`serve --latitude NAME`). As with defects (reference/defects/active.ts), the
 * stack hands the list to the worker processes it forks through LATITUDE_ENV, and a worker adopts it
 * only because it is a child of such a stack (process.send exists).
 */
import { findLatitude, LATITUDES, type LatitudeName } from './registry.ts';

export const LATITUDE_ENV = 'SPEAKCHECK_REFERENCE_LATITUDE';

const active = new Set<LatitudeName>();

export const latitude = {
  has(name: LatitudeName): boolean {
    return active.has(name);
  },
  list(): LatitudeName[] {
    return [...active];
  },
};

export class UnknownLatitudeError extends Error {}

/** Turns on `names` (replacing what was on); an unknown name throws, listing the known ones. */
export function activateLatitude(names: readonly string[]): void {
  const unknown = names.filter((name) => !findLatitude(name));
  if (unknown.length > 0) {
    throw new UnknownLatitudeError(
      `unknown latitude ${unknown.join(', ')}; known latitude switches: ${LATITUDES.map((x) => x.name).join(', ')}`,
    );
  }
  active.clear();
  for (const name of names) active.add(name as LatitudeName);
  if (active.size > 0) process.env[LATITUDE_ENV] = [...active].join(',');
  else delete process.env[LATITUDE_ENV];
}

/** In a worker process forked by a stack with latitude switches: the parent's switches. */
export function adoptParentLatitude(): void {
  const given = process.send ? process.env[LATITUDE_ENV] : undefined;
  if (given) activateLatitude(given.split(','));
}
