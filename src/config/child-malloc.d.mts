export declare const CHILD_MALLOC_ENV: Readonly<Record<string, string>>;
export declare function setChildMalloc(env: NodeJS.ProcessEnv): void;
