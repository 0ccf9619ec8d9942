/**
 * The archive run's measured baseline: the same requests as `archive` (list pages, one files request per replay,
 * every file downloaded) under the same caps (C replays at once, the transport's `replay` and `storage` caps, the
 * current file + filesAhead downloading per replay), made with bare undici and a counter per cap. Bodies are read
 * and dropped: no decode, no sink, no manifest, no retries. The gap between this and `archive` is the pipeline's
 * own cost; the gap between this and the computed bound is what the caps cost when requests do not line up.
 */

// The same undici parts as the transport (src/http/undici-parts.ts): bare undici, without loading all of it.
import { Agent, request } from '../src/http/undici-parts.js';

export interface RawArchiveOptions {
  endpoint: string;
  apiKey: string;
  secretKey: string;
  concurrency: number;
  apiCap: number;
  storageCap: number;
  filesInFlight: number;
  listPageSize: number;
}

class Slots {
  private waiting: Array<() => void> = [];
  constructor(private free: number) {}
  async take(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free++;
  }
}

/** Returns the number of files downloaded. */
export async function rawArchive(o: RawArchiveOptions): Promise<number> {
  const agent = new Agent({ keepAliveTimeout: 10_000 });
  const auth = 'Basic ' + Buffer.from(`${o.apiKey}:${o.secretKey}`).toString('base64');
  const api = new Slots(o.apiCap);
  const storage = new Slots(o.storageCap);
  const get = async (url: string, slots: Slots, headers: Record<string, string>): Promise<Buffer> => {
    await slots.take();
    try {
      const res = await request(new URL(url), { method: 'GET', dispatcher: agent, headers });
      const body = Buffer.from(await res.body.arrayBuffer());
      if (res.statusCode !== 200) throw new Error(`raw archive: HTTP ${res.statusCode}`);
      return body;
    } finally {
      slots.give();
    }
  };
  const base = o.endpoint.replace(/\/+$/, '');
  let token: string | null = null;
  let listed = false;
  const queue: string[] = [];
  const nextId = async (): Promise<string | undefined> => {
    while (queue.length === 0 && !listed) {
      const q = new URLSearchParams({ page_size: String(o.listPageSize) });
      if (token !== null) q.set('page_token', token);
      const page = JSON.parse(
        (await get(`${base}/api/1/session-replays?${q}`, api, { authorization: auth })).toString('utf8'),
      ) as {
        session_replays: Array<{ replay_id: string }>;
        next_page_token: string | null;
      };
      queue.push(...page.session_replays.map((r) => r.replay_id));
      token = page.next_page_token;
      if (token === null) listed = true;
    }
    return queue.shift();
  };
  let listing: Promise<unknown> = Promise.resolve();
  const next = (): Promise<string | undefined> => {
    const p = listing.then(nextId);
    listing = p.catch(() => undefined);
    return p;
  };
  let files = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const id = await next();
      if (id === undefined) return;
      const q = new URLSearchParams({ replay_id: id });
      const page = JSON.parse(
        (await get(`${base}/api/1/session-replays/files?${q}`, api, { authorization: auth })).toString('utf8'),
      ) as {
        files: string[];
      };
      // The current file and `filesInFlight - 1` ahead: a new download starts as soon as one finishes.
      let i = 0;
      const lane = async (): Promise<void> => {
        while (i < page.files.length) {
          const url = page.files[i++]!;
          await get(url, storage, {});
          files++;
        }
      };
      await Promise.all(Array.from({ length: Math.min(o.filesInFlight, page.files.length) }, lane));
    }
  };
  try {
    await Promise.all(Array.from({ length: o.concurrency }, worker));
  } finally {
    await agent.close();
  }
  return files;
}
