export declare const ESPEAK_MAX_INLINED_BYTECODE_SIZE: number;
export declare const ESPEAK_V8_FLAGS: readonly string[];
