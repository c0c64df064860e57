export { areasOfRequirements, closestIds, parseRequirementIds } from './requirement-selection.ts';
export {
  AREAS,
  ConfigError,
  decodeRunConfig,
  encodeRunConfig,
  parseListenAddress,
  type RunFlags,
  resolveRunConfig,
} from './resolve.ts';
export {
  type ListenAddress,
  type Profile,
  RUN_CONFIG_ENV,
  type RunConfig,
  type Target,
  type Timeouts,
} from './types.ts';
