/** Latitude switches of the reference stack: the registry (registry.ts) and the switches on (active.ts). */
export {
  activateLatitude,
  adoptParentLatitude,
  LATITUDE_ENV,
  latitude,
  UnknownLatitudeError,
} from './active.ts';
export {
  compatible,
  compatibleLatitudes,
  findLatitude,
  LATITUDES,
  type LatitudeName,
  type LatitudeSpec,
} from './registry.ts';
