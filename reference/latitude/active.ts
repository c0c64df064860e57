/**
 * Which latitude switches are on in this process: off unless the stack was started with
 * `latitude: [...]` (`serve --latitude NAME`). As with defects (reference/defects/active.ts), the
 * stack hands the list to the worker processes it forks through LATITUDE_ENV, and a worker adopts it
 * only because it is a child of such a stack (process.send exists).
 */
import { createSwitchSet } from '../switch-set.ts';
import { findLatitude, LATITUDES, type LatitudeName } from './registry.ts';

export const LATITUDE_ENV = 'SPEAKCHECK_REFERENCE_LATITUDE';

export class UnknownLatitudeError extends Error {}

const switches = createSwitchSet<LatitudeName>({
  env: LATITUDE_ENV,
  isKnown: (name) => findLatitude(name) !== undefined,
  unknown: (names) =>
    new UnknownLatitudeError(
      `unknown latitude ${names.join(', ')}; known latitude switches: ${LATITUDES.map((x) => x.name).join(', ')}`,
    ),
});

export const latitude = switches.view;
/** Turns on `names` (replacing what was on); an unknown name throws, listing the known ones. */
export const activateLatitude = switches.activate;
/** In a worker process forked by a stack with latitude switches: the parent's switches. */
export const adoptParentLatitude = switches.adoptParent;
