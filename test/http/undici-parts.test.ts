import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, request } from '../../src/http/undici-parts.js';
import { packageRoot } from '../../src/util/package-root.js';

describe('undici parts loaded from their own modules', () => {
  it('come from the exact undici version package.json pins (internal paths are never used under a range)', () => {
    const require = createRequire(import.meta.url);
    const pinned = (
      JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    ).dependencies.undici;
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect((require('undici/package.json') as { version: string }).version).toBe(pinned);
  });

  it("are undici's own Agent and request (same classes as its index), so an upgrade that moves them fails here", () => {
    expect(Agent).toBe(undici.Agent);
    const agent = new Agent();
    expect(agent).toBeInstanceOf(undici.Dispatcher);
    expect(typeof request).toBe('function');
    void agent.close();
  });

  it('send a request like the index does (origin and path from the URL, query kept)', async () => {
    const { createServer } = await import('node:http');
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as { port: number };
    const agent = new Agent();
    try {
      const res = await request(new URL(`http://127.0.0.1:${port}/a/b?x=1&y=2`), { method: 'GET', dispatcher: agent });
      expect(res.statusCode).toBe(200);
      expect(await res.body.text()).toBe('ok');
      const res2 = await request(new URL(`http://127.0.0.1:${port}/plain`), {
        method: 'POST',
        body: 'hi',
        dispatcher: agent,
      });
      await res2.body.dump();
      expect(seen).toEqual(['GET /a/b?x=1&y=2', 'POST /plain']);
    } finally {
      await agent.close();
      server.close();
    }
  });
});
