/** jq-web (jq 1.7 built to WebAssembly) ships no types: the part `api --jq` uses. */
declare module 'jq-web' {
  interface JqModule {
    /** Runs `filter` over the JSON text `input` with jq's command-line `flags`; resolves with jq's stdout. */
    raw(input: string, filter: string, flags?: string[]): string;
  }
  /** A jq failure: jq's exit status (3: the filter does not compile, 5: it failed on the input) and its stderr. */
  interface JqFailure extends Error {
    exitCode?: number;
    stderr?: string;
  }
  const jq: Promise<JqModule>;
  export default jq;
}
