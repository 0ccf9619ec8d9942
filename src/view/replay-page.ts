/**
 * The replay page: today the inline player of the `html` format (sinks/player-page.ts) with the replay's events
 * streamed into it as a JSON array. This is the one place to change when the shared player shell is used instead.
 */
import { createHash } from 'node:crypto';
import { escapeForScript, playerPage } from '../../sinks/player-page.js';

const COMMA = Buffer.from(',');
const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/** The page's bytes, in order, around the events: nothing but the page is held in memory. */
export async function* replayPageBytes(title: string, events: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const page = playerPage(title);
  // The head ends just before `[` and the tail starts just after `]`.
  yield page.head;
  let first = true;
  yield OPEN;
  for await (const event of events) {
    if (!first) yield COMMA;
    first = false;
    yield escapeForScript(event);
  }
  yield CLOSE;
  yield page.tail;
}

let cspOfPage: string | undefined;

/**
 * The Content-Security-Policy of the replay page: only the page's own inline scripts run (by their hashes), nothing
 * is fetched from anywhere (recorded images, fonts and styles pointing outside are refused).
 */
export function replayPageCsp(): string {
  if (cspOfPage !== undefined) return cspOfPage;
  const page = playerPage('');
  const html = Buffer.concat([page.head, page.tail]).toString('utf8');
  const hashes: string[] = [];
  for (const m of html.matchAll(/<script(?![^>]*type="application\/json")[^>]*>([\s\S]*?)<\/script>/gi)) {
    hashes.push(`'sha256-${createHash('sha256').update(m[1]!, 'utf8').digest('base64')}'`);
  }
  cspOfPage = [
    "default-src 'none'",
    `script-src ${hashes.join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    'font-src data:',
    'media-src data: blob:',
    "frame-src 'self' about: blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
  return cspOfPage;
}
