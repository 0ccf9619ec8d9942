/** The synthetic archive of the bench's view part: a year of replays with the facts an export records. */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { okEntry, syntheticReplayId } from './resume-data.js';

const YEAR_MS = 365 * 86_400_000;
const T0 = Date.parse('2025-12-01T00:00:00Z');

/**
 * The i-th of n replays: started over a year, every 13th with console errors (and a message), every 29th rage
 * clicks, every 31st a dead click, every 37th failed requests; pages /p/<i % 997> then /cart or (every 3rd) /checkout.
 */
export function viewEntry(i: number, n: number): Record<string, unknown> {
  const id = syntheticReplayId(i);
  const start = new Date(T0 + Math.floor((i * YEAR_MS) / n)).toISOString();
  const urls = [`https://shop.example/p/${i % 997}`, `https://shop.example/${i % 3 === 0 ? 'checkout' : 'cart'}`];
  const base = okEntry(i, id, start);
  const errors = i % 13 === 0 ? (i % 4) + 1 : 0;
  return {
    ...base,
    checks: { ...(base['checks'] as object), first_url: urls[0], ...(errors > 0 ? { console_errors: errors } : {}) },
    end_time: new Date(Date.parse(start) + ((i * 7919) % 3_600_000)).toISOString(),
    platform_id: i % 50_000,
    facts: {
      pages: 2,
      urls,
      clicks: i % 23,
      rage_clicks: i % 29 === 0 ? 1 : 0,
      dead_clicks: i % 31 === 0 ? 1 : 0,
      errors,
      ...(errors > 0 ? { first_error: `TypeError: basket${i % 50} is undefined`, first_error_ms: 1500 } : {}),
      ...(i % 37 === 0 ? { network_requests: 6, network_failed: 1 } : {}),
      duration_ms: (i * 7919) % 3_600_000,
      active_ms: (i * 13) % 600_000,
      viewport: { width: 1280, height: 800 },
    },
  };
}

/** `<dir>/manifest.ndjson` of n replays, one line each. */
export async function writeViewManifest(dir: string, n: number): Promise<void> {
  await mkdir(dir, { recursive: true });
  const out = createWriteStream(join(dir, 'manifest.ndjson'));
  for (let i = 0; i < n; i++) if (!out.write(JSON.stringify(viewEntry(i, n)) + '\n')) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}
