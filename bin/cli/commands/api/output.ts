/**
 * What `api` prints on stdout, as `gh api` prints it: each answer of the call as the API gave it, in order — with
 * `-i` its status line and headers first. A JSON answer is printed indented (with `--paginate`, each page on a line
 * of its own; with `--slurp`, all pages in one array at the end); other text (CSV, `OK`) as it came; `--raw` every
 * body byte for byte. `--jq` runs over each JSON answer (or the slurped array). An error's answer is printed the same
 * way before the command fails. `--silent` prints no body. The one change to an answer: the operation's own client-side check of it
 * (`Operation.answer`, e.g. replay.list's time filter), which `--raw` skips.
 */
import type { AnswerSeen, ApiResponse } from '../../../../src/clients/index.js';
import { ConfigError } from '../../../../src/index.js';
import { dataText } from '../../terminal-output.js';
import type { JqFilter } from './jq.js';

/** `--slurp` holds every page until the last: at most this much JSON text. */
const SLURP_MAX_BYTES = 64 * 1024 * 1024;

export interface OutputOptions {
  include: boolean;
  raw: boolean;
  /** `--paginate`: one page a line. */
  pages: boolean;
  /** `--silent`: no answer's body (heads with `-i` still). */
  silent: boolean;
  slurp: boolean;
  jq?: JqFilter;
}

export async function write(out: NodeJS.WritableStream, text: string | Buffer): Promise<void> {
  if (text.length === 0) return;
  if (!out.write(text)) await new Promise((res) => out.once('drain', res));
}

/**
 * Data from the server on its way to stdout (JSON or text; `--raw` bytes do not come here): the one place where it is
 * written, escaped on a terminal (bin/cli/terminal-output.ts) so that no answer reaches a TTY as controls.
 */
function data(out: NodeJS.WritableStream & { isTTY?: boolean }, kind: 'json' | 'text', text: string): Promise<void> {
  return write(out, dataText(out, kind, text));
}

/** `HTTP/1.1 200 OK`, then each header as `name: value` (sorted, lists joined), then an empty line. */
function headText(a: Pick<AnswerSeen, 'status' | 'statusText' | 'headers'>): string {
  const lines = [`HTTP/1.1 ${a.status}${a.statusText ? ` ${a.statusText}` : ''}`];
  for (const name of Object.keys(a.headers).sort()) {
    const v = a.headers[name];
    if (v !== undefined) lines.push(`${name}: ${Array.isArray(v) ? v.join(', ') : v}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A body's JSON value, or undefined when it is not JSON (text, CSV, empty). */
function jsonOf(body: Buffer): { value: unknown } | undefined {
  const text = body.toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Text as printed: ended by a newline when it has none; empty: nothing. */
function textOf(body: Buffer): string {
  const text = body.toString('utf8');
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

export class ApiOutput {
  readonly #out: NodeJS.WritableStream;
  readonly #o: OutputOptions;
  readonly #slurped: string[] = [];
  #slurpedBytes = 0;
  #shape: ((answer: unknown) => unknown) | undefined;

  constructor(out: NodeJS.WritableStream, o: OutputOptions) {
    this.#out = out;
    this.#o = o;
  }

  /** The operation's client-side check of each JSON answer (replay.list's time filter); `--raw` skips it. */
  shapeWith(shape: (answer: unknown) => unknown): void {
    this.#shape = shape;
  }

  /** One answer of the call, as it arrives: its head with `-i`, then its body. */
  async answer(res: ApiResponse): Promise<void> {
    if (this.#o.include) await data(this.#out, 'text', headText(res));
    if (!this.#o.silent) await this.#body(res.body, true);
  }

  async #body(body: Buffer, shaped: boolean): Promise<void> {
    if (this.#o.raw && !this.#o.jq) {
      await write(this.#out, body);
      if (body.length > 0 && body[body.length - 1] !== 0x0a) await write(this.#out, '\n');
      return;
    }
    const json = jsonOf(body);
    if (json === undefined) {
      if (this.#o.jq && body.length > 0) throw new ConfigError('--jq: this answer is not JSON (CSV or text)');
      return data(this.#out, 'text', textOf(body));
    }
    const value = shaped && !this.#o.raw && this.#shape ? this.#shape(json.value) : json.value;
    if (this.#o.slurp) return this.#keep(JSON.stringify(value));
    const text = this.#o.pages ? `${JSON.stringify(value)}\n` : `${JSON.stringify(value, null, 2)}\n`;
    await this.#json(text);
  }

  /** JSON text through `--jq`, or as given. */
  async #json(text: string): Promise<void> {
    if (this.#o.jq) await data(this.#out, 'text', await this.#o.jq.run(text));
    else await data(this.#out, 'json', text);
  }

  #keep(text: string): void {
    this.#slurpedBytes += text.length + 1;
    if (this.#slurpedBytes > SLURP_MAX_BYTES)
      throw new ConfigError(
        `--slurp: the pages pass ${SLURP_MAX_BYTES} bytes of JSON; print them one a line (without --slurp) instead`,
      );
    this.#slurped.push(text);
  }

  /** The end of the call: the `--slurp` array. */
  async end(): Promise<void> {
    if (this.#o.slurp) await this.#json(`[${this.#slurped.join(',')}]\n`);
  }

  /**
   * An error's answer, as `gh api` prints it: on stdout (head with `-i`; the body, through `--jq` when it is JSON and
   * the filter takes it), while stderr says what failed.
   */
  async failure(a: AnswerSeen): Promise<void> {
    if (this.#o.include) await data(this.#out, 'text', headText(a));
    if (this.#o.silent) return;
    if (this.#o.jq) {
      try {
        return await this.#json(a.body.toString('utf8'));
      } catch {
        // not JSON, or not what the filter expects: the body as it came
      }
    }
    if (this.#o.raw) return write(this.#out, a.body);
    const json = jsonOf(a.body);
    await data(this.#out, 'json', json ? `${JSON.stringify(json.value, null, 2)}\n` : textOf(a.body));
  }
}
