/**
 * Data from outside written to stdout — an API's answers, listed and planned replays, a replay's events — reaches a
 * terminal as text only: on a terminal (`isTTY`), every control character (C0 but line feed and tab, a carriage return
 * but before a line feed, DEL, C1: U+009B is a CSI of its own), the Unicode line and paragraph separators and the
 * format characters (bidirectional overrides, zero-width characters) are written as escapes, as the reporter writes
 * log lines and errors; so no answer can write the clipboard (OSC 52), make a link (OSC 8) or clear the screen (CSI
 * 2J). Elsewhere (a pipe, a file) the bytes go as they are. `--raw` output does not come here.
 *
 * JSON keeps its value: such a character stands only inside a string (JSON.stringify writes C0 controls as escapes),
 * where it is written `\u009b`; text shows `\x9b`.
 */
import { StringDecoder } from 'node:string_decoder';
import type { CliOutput } from './context.js';
import { CONTROLS, escapeOf, jsonEscape } from './reporter.js';

/** How escaped characters are written: as JSON escapes (`\u001b`, the same JSON value) or for reading (`\x1b`). */
export type DataKind = 'json' | 'text';

/** `text` with what a terminal must not get escaped; line feeds, tabs and CR LF kept. */
export function terminalText(text: string, kind: DataKind): string {
  const escaped = kind === 'json' ? jsonEscape : escapeOf;
  return text.replace(CONTROLS, (c, at: number) =>
    c === '\n' || c === '\t' || (c === '\r' && text.charCodeAt(at + 1) === 0x0a) ? c : escaped(c),
  );
}

/** Writes `chunk` to `out`, waiting for `drain` when its buffer is full. */
function written(out: NodeJS.WritableStream, chunk: string | Buffer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    out.write(chunk, (err) => (err ? reject(err) : resolve()));
  });
}

/**
 * stdout for data from outside: `write` escapes what a terminal must not get when `out` is one, and passes the bytes
 * on otherwise. Buffers are read as UTF-8 (a character cut between two chunks is written whole with the second).
 */
export class DataOutput {
  readonly #out: CliOutput;
  readonly #kind: DataKind;
  readonly #terminal: boolean;
  readonly #decoder = new StringDecoder('utf8');

  constructor(out: CliOutput, kind: DataKind) {
    this.#out = out;
    this.#kind = kind;
    this.#terminal = out.isTTY === true;
  }

  write(chunk: string | Buffer): Promise<void> {
    if (!this.#terminal) return written(this.#out, chunk);
    const text = typeof chunk === 'string' ? chunk : this.#decoder.write(chunk);
    return text === '' ? Promise.resolve() : written(this.#out, terminalText(text, this.#kind));
  }

  /** What is left of a character cut at the end (written as U+FFFD). */
  async end(): Promise<void> {
    if (!this.#terminal) return;
    const rest = this.#decoder.end();
    if (rest !== '') await written(this.#out, terminalText(rest, this.#kind));
  }
}

/** `text`, data from outside, as it may be written to `out`: escaped when `out` is a terminal. */
export function dataText(out: { isTTY?: boolean | undefined }, kind: DataKind, text: string): string {
  return out.isTTY === true ? terminalText(text, kind) : text;
}
