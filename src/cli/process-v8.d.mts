export declare const HARNESS_V8_FLAGS: readonly string[];
export declare const YOUNG_GENERATION_V8_FLAGS: readonly string[];
export declare function processV8Flags(argv: readonly string[]): readonly string[];
