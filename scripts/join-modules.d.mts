/** Types of join-modules.mjs, for the tests that call it. */
export declare class JoinError extends Error {}

export declare function joinModules(options: {
  /** The module the script runs. */
  entry: string;
  /** A module's TypeScript source. */
  read(path: string): string | Promise<string>;
  /** Names a module may not declare at top level. */
  globals: ReadonlySet<string>;
  /** Paths in messages and section comments are relative to it. */
  root: string;
}): Promise<{ script: string; files: string[] }>;
