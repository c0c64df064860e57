export declare const ENTRIES: Readonly<Record<string, string>>;
export declare function cacheBundleDir(cacheDir: string): string;
export declare function bundledCli(cacheDir: string | undefined): Promise<string | undefined>;
export declare function build(dir: string, kind: 'pack' | 'cache'): Promise<string>;
export declare function prebuiltName(source: string): string;
