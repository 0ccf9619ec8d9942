/**
 * `api --jq <filter>`: jq itself (1.7, jq-web: jq's C source built to WebAssembly), loaded only when the flag is given.
 * Output as `gh api --jq` prints it off a terminal: a string result as raw text, any other value as compact JSON, one
 * result a line (jq's `-r -c`).
 */
import { createRequire } from 'node:module';
import type JqWeb from 'jq-web';
import { ReplayExportError } from '../../../../src/index.js';

/** A filter that does not compile, or that fails on an answer: a usage error naming jq's message. */
class JqError extends ReplayExportError {
  constructor(message: string) {
    super(message, { code: 'JQ_ERROR', category: 'usage' });
  }
}

export interface JqFilter {
  /** The filter's output over one JSON text (each result on a line of its own, ending with a newline). */
  run(json: string): Promise<string>;
}

function jqMessage(err: unknown): string {
  const e = err as { stderr?: unknown; message?: unknown };
  const text = typeof e.stderr === 'string' && e.stderr !== '' ? e.stderr : String(e.message ?? err);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('Non-zero exit code'))
    .join('; ');
}

/** Loads jq and checks that `filter` compiles (before any request is sent). */
export async function compileJq(filter: string): Promise<JqFilter> {
  // A CommonJS module whose export is a promise: required as such (an ES import would see a thenable namespace).
  const jq = await (createRequire(import.meta.url)('jq-web') as typeof JqWeb);
  try {
    jq.raw('null', filter, ['-r', '-c']);
  } catch (err) {
    // 3: does not compile. Another failure on `null` (say, `.[]`) says nothing about the answers to come.
    if ((err as { exitCode?: number }).exitCode === 3) throw new JqError(`--jq: ${jqMessage(err)}`);
  }
  return {
    async run(json: string): Promise<string> {
      try {
        const out = jq.raw(json, filter, ['-r', '-c']);
        return out === '' || out.endsWith('\n') ? out : `${out}\n`;
      } catch (err) {
        throw new JqError(`--jq: ${jqMessage(err)}`);
      }
    },
  };
}
