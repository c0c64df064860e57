/** Defect switches of the reference stack: the registry (registry.ts) and the switches on (active.ts). */
export { activateDefects, adoptParentDefects, DEFECTS_ENV, defects, UnknownDefectError } from './active.ts';
export { DEFECTS, type DefectName, type DefectSpec, findDefect } from './registry.ts';
