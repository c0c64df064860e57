/**
 * Which defect switches are on in this process. Off unless the stack was started with
 * `defects: [...]` (`serve --defect NAME`): startReferenceStack calls activateDefects, which also
 * hands the list to the worker processes it forks through DEFECTS_ENV; a worker reads it with
 * adoptParentDefects() only because it is a child of such a stack (process.send exists).
 */
import { createSwitchSet } from '../switch-set.ts';
import { DEFECTS, type DefectName, findDefect } from './registry.ts';

export const DEFECTS_ENV = 'SPEAKCHECK_REFERENCE_DEFECTS';

export class UnknownDefectError extends Error {}

const switches = createSwitchSet<DefectName>({
  env: DEFECTS_ENV,
  isKnown: (name) => findDefect(name) !== undefined,
  unknown: (names) =>
    new UnknownDefectError(
      `unknown defect ${names.join(', ')}; known defects: ${DEFECTS.map((x) => x.name).join(', ')}`,
    ),
});

export const defects = switches.view;
/** Turns on `names` (replacing what was on); an unknown name throws, listing the known ones. */
export const activateDefects = switches.activate;
/** In a worker process forked by a defective stack: the parent's switches. */
export const adoptParentDefects = switches.adoptParent;
