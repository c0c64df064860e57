export declare const CACHE_DIR_ENV: 'SPEAKCHECK_CACHE_DIR';
export declare const CACHE_DIR_FLAG: '--cache-dir';
export declare class CacheDirError extends Error {
  constructor(message: string, exitCode: number);
  readonly exitCode: number;
}
export declare function cacheDirFlag(argv: readonly string[]): string | undefined;
export declare function resolveCacheDir(explicit: string | undefined, env?: NodeJS.ProcessEnv): string;
