/**
 * One call of `replay-export api` in the all-operations test (test/cli/api-all-operations.test.ts): every file of
 * this folder but this one exports `EXAMPLES`, the calls of one family, run in the order given against one sandbox
 * (so a create can come before the update that uses what it made).
 */
export interface ApiExample {
  /** The catalogue name, as `replay-export api --list` prints it (e.g. `flags.variants.create`). */
  operation: string;
  /** The arguments after the operation name, e.g. `['--param', 'limit=2']` or `['--body', '-']`. */
  args: readonly string[];
  /** Written to the CLI's stdin (with `--body -`). */
  stdin?: string;
  /**
   * Checks what the CLI printed on stdout: the parsed JSON for a JSON result, one parsed value per line with
   * `--paginate` (each page's answer), the text for a CSV result (vitest `expect` inside; throws on a wrong shape).
   */
  check(result: unknown): void;
}
