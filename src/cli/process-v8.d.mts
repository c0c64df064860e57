export declare function processV8Flags(argv: readonly string[]): readonly string[];
