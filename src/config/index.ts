export {
  AREAS,
  ConfigError,
  decodeRunConfig,
  encodeRunConfig,
  type RunFlags,
  resolveRunConfig,
} from './resolve.ts';
export { type Profile, RUN_CONFIG_ENV, type RunConfig, type Target, type Timeouts } from './types.ts';
