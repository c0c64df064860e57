// The package ships no types. Its default export is the Emscripten module factory; the module's
// shape is declared where it is used (espeak-thread.ts).
declare module '@echogarden/espeak-ng-emscripten' {
  const createEspeakModule: (moduleArg?: Record<string, unknown>) => Promise<unknown>;
  export default createEspeakModule;
}
