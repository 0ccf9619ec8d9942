/**
 * What `api` prints on stdout: with `-i` each answer's status line and headers first (as they arrive); then the
 * result — the typed JSON (indented; one record a line with `--paginate`; one array with `--slurp`), CSV as it came, a
 * mutation's answer, or with `--raw` each body as it came — through `--jq` when given. An error's answer is printed
 * the same way before the command fails.
 */
import type { AnswerSeen, ApiResponse } from '../../../../src/clients/index.js';
import { ConfigError } from '../../../../src/index.js';
import type { JqFilter } from './jq.js';

/** `--slurp` holds every record until the last page: at most this much JSON text. */
export const SLURP_MAX_BYTES = 64 * 1024 * 1024;

export interface OutputOptions {
  include: boolean;
  raw: boolean;
  slurp: boolean;
  jq?: JqFilter;
}

async function write(out: NodeJS.WritableStream, text: string | Buffer): Promise<void> {
  if (text.length === 0) return;
  if (!out.write(text)) await new Promise((res) => out.once('drain', res));
}

/**
 * Data from the server on its way to stdout (JSON or text; `--raw` bytes do not come here): the one place where it is
 * written, so that a writer escaping terminal controls (issue #40's shared writer) takes it over in one line.
 */
function data(out: NodeJS.WritableStream, _kind: 'json' | 'text', text: string): Promise<void> {
  return write(out, text);
}

/** `HTTP/1.1 200 OK`, then each header as `name: value` (sorted, lists joined), then an empty line. */
export function headText(a: Pick<AnswerSeen, 'status' | 'statusText' | 'headers'>): string {
  const lines = [`HTTP/1.1 ${a.status}${a.statusText ? ` ${a.statusText}` : ''}`];
  for (const name of Object.keys(a.headers).sort()) {
    const v = a.headers[name];
    if (v !== undefined) lines.push(`${name}: ${Array.isArray(v) ? v.join(', ') : v}`);
  }
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** A body as printed by default: JSON indented, other text as it came, ended by a newline; empty: nothing. */
function answerText(body: Buffer): string {
  const text = body.toString('utf8');
  if (text.trim() === '') return '';
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return text.endsWith('\n') ? text : `${text}\n`;
  }
}

export class ApiOutput {
  readonly #out: NodeJS.WritableStream;
  readonly #o: OutputOptions;
  readonly #slurped: string[] = [];
  #slurpedBytes = 0;
  /** Answers not printed yet (`--raw` prints them in order, as the result's values come). */
  readonly #pending: ApiResponse[] = [];
  #last: ApiResponse | undefined;

  constructor(out: NodeJS.WritableStream, o: OutputOptions) {
    this.#out = out;
    this.#o = o;
  }

  /** Sees each answer as it arrives: prints its head now with `-i`, keeps it for `--raw` and a mutation's answer. */
  async answer(res: ApiResponse): Promise<void> {
    if (this.#o.include) await data(this.#out, 'text', headText(res));
    this.#last = res;
    if (this.#o.raw) this.#pending.push(res);
  }

  /** JSON text through `--jq`, or as given. */
  async #json(text: string): Promise<void> {
    await data(this.#out, this.#o.jq ? 'text' : 'json', this.#o.jq ? await this.#o.jq.run(text) : text);
  }

  /** `--raw`: the answers seen so far, each body as it came (through `--jq` when given). */
  async flushRaw(): Promise<void> {
    for (const res of this.#pending.splice(0)) {
      if (this.#o.jq) await this.#json(res.body.toString('utf8'));
      else {
        await write(this.#out, res.body);
        if (res.body.length > 0 && res.body[res.body.length - 1] !== 0x0a) await write(this.#out, '\n');
      }
    }
  }

  /** One record of `--paginate`: a line of its own, or kept for the `--slurp` array. */
  async record(value: unknown): Promise<void> {
    if (this.#o.raw) return this.flushRaw();
    const text = JSON.stringify(value);
    if (!this.#o.slurp) return this.#json(`${text}\n`);
    this.#slurpedBytes += text.length + 1;
    if (this.#slurpedBytes > SLURP_MAX_BYTES)
      throw new ConfigError(
        `--slurp: the records pass ${SLURP_MAX_BYTES} bytes of JSON; print them one a line (without --slurp) instead`,
      );
    this.#slurped.push(text);
  }

  /** The end of `--paginate`: the `--slurp` array. */
  async endRecords(): Promise<void> {
    if (this.#o.raw) return this.flushRaw();
    if (this.#o.slurp) await this.#json(`[${this.#slurped.join(',')}]\n`);
  }

  /** The result of one call: typed JSON, CSV text, or (no typed result) the API's answer. */
  async result(value: unknown, csv: boolean): Promise<void> {
    if (this.#o.raw) return this.flushRaw();
    if (csv && typeof value === 'string') {
      if (this.#o.jq) throw new ConfigError('--jq: this operation answers CSV, not JSON');
      return data(this.#out, 'text', value);
    }
    if (value !== undefined) return this.#json(`${JSON.stringify(value, null, 2)}\n`);
    if (this.#last === undefined) return;
    const text = answerText(this.#last.body);
    if (this.#o.jq && text !== '') return this.#json(this.#last.body.toString('utf8'));
    await data(this.#out, 'json', text);
  }

  /**
   * An error's answer, as `gh api` prints it: on stdout (head with `-i`; the body, through `--jq` when it is JSON and
   * the filter takes it), while stderr says what failed.
   */
  async failure(a: AnswerSeen): Promise<void> {
    if (this.#o.include) await data(this.#out, 'text', headText(a));
    const text = a.body.toString('utf8');
    if (this.#o.jq) {
      try {
        return await this.#json(text);
      } catch {
        // not JSON, or not what the filter expects: the body as it came
      }
    }
    if (this.#o.raw) await write(this.#out, a.body);
    else await data(this.#out, 'json', answerText(a.body));
  }
}
