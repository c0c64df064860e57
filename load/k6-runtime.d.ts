/**
 * What k6 provides at run time that @types/k6 leaves to the DOM library: only `console` is used here,
 * and loading the whole DOM library would let browser-only APIs (fetch, window) typecheck in scripts
 * that k6 cannot run.
 */
declare global {
  var console: {
    log(...data: unknown[]): void;
    info(...data: unknown[]): void;
    warn(...data: unknown[]): void;
    error(...data: unknown[]): void;
    debug(...data: unknown[]): void;
  };
}

export {};
