import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ByteBudget } from '../../src/pipeline/byte-budget.js';
import { orderedPrefetch, type DownloadBody } from '../../src/pipeline/ordered-prefetch.js';

// A real loopback server: /file/<i> answers 64 KiB of byte i after a delay that makes early files the slowest,
// so downloads running ahead finish before the file being read, and the order must still hold.
const FILES = 8;
const SIZE = 64 * 1024;
let server: Server;
let base: string;
let active = 0;
let maxActive = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const i = Number(req.url!.split('/')[2]);
    active++;
    maxActive = Math.max(maxActive, active);
    setTimeout(
      () => {
        res.writeHead(200, { 'content-length': String(SIZE) });
        const half = SIZE / 2;
        res.write(Buffer.alloc(half, i));
        setTimeout(() => {
          res.end(Buffer.alloc(SIZE - half, i));
          active--;
        }, 5);
      },
      (FILES - i) * 15,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

async function open(i: number, signal: AbortSignal): Promise<DownloadBody> {
  const res = await fetch(`${base}/file/${i}`, { signal });
  const body = res.body!;
  return {
    size: Number(res.headers.get('content-length')),
    chunks: (async function* () {
      for await (const c of body as unknown as AsyncIterable<Uint8Array>) yield c;
    })(),
  };
}

async function* ids(): AsyncGenerator<number> {
  for (let i = 0; i < FILES; i++) yield i;
}

async function readAll(budgetBytes: number, ahead: number): Promise<{ order: number[]; peak: number }> {
  const budget = new ByteBudget(budgetBytes);
  const order: number[] = [];
  let peak = 0;
  for await (const f of orderedPrefetch(ids(), { open, ahead, budget })) {
    let n = 0;
    for await (const chunk of f.body()) {
      peak = Math.max(peak, budget.inUse);
      expect(chunk.every((b) => b === f.file)).toBe(true);
      n += chunk.byteLength;
    }
    expect(n).toBe(SIZE);
    order.push(f.file);
  }
  expect(budget.inUse).toBe(0);
  return { order, peak };
}

describe('orderedPrefetch over loopback HTTP', () => {
  test('files fetched ahead in parallel come out strictly in order, every byte of each', async () => {
    maxActive = 0;
    const { order } = await readAll(16 * SIZE, 3);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(maxActive).toBeGreaterThan(1);
    expect(maxActive).toBeLessThanOrEqual(4); // current + 3 ahead
  });

  test('a byte budget smaller than one file defers downloads ahead; order and bytes are still right', async () => {
    maxActive = 0;
    const { order, peak } = await readAll(SIZE / 2, 3);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // Nothing ahead may reserve a file larger than the budget: only the current file's chunks are ever held.
    expect(peak).toBeLessThanOrEqual(SIZE);
  });

  test('with ahead = 0 files are fetched one at a time', async () => {
    maxActive = 0;
    const { order } = await readAll(16 * SIZE, 0);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(maxActive).toBe(1);
  });

  test('leaving early stops the downloads and frees the budget', async () => {
    const budget = new ByteBudget(16 * SIZE);
    for await (const f of orderedPrefetch(ids(), { open, ahead: 3, budget })) {
      for await (const _ of f.body()) break;
      break;
    }
    expect(budget.inUse).toBe(0);
  });
});
