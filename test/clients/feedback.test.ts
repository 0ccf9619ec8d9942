import { afterEach, describe, expect, it } from 'vitest';
import { FeedbackClient, MalformedResponseError, type FeedbackItem } from '../../src/clients/index.js';
import { BASIC, expectRefused, json, rig, type Rig } from './helpers.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const ITEM: FeedbackItem = {
  unique_id: 'ticket-1',
  body: 'The export button does nothing 😕',
  author: 'Ana',
  user_id: 'u1',
  url: 'https://support.example/t/1',
  created_at: '2026-01-31T10:00:00Z',
  conversation_parts: [{ unique_id: 'ticket-1-p1', body: 'Which browser?', email: 'agent@example.com' }],
};

describe('FeedbackClient', () => {
  it('POSTs JSON {source_id, items} with Basic auth and parses the counts', async () => {
    r = await rig((_req, res) => json(res, 200, { ingested: 1, failed: 0, errors: [] }));
    const got = await new FeedbackClient(r.transport).ingest('zendesk-1', [ITEM]);
    expect(got).toEqual({ ingested: 1, failed: 0, errors: [] });
    const seen = r.only();
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/api/1/ai-feedback/ingest');
    expect(seen.headers.authorization).toBe(BASIC);
    expect(seen.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen.body)).toEqual({ source_id: 'zendesk-1', items: [ITEM] });
  });

  it('a partial failure resolves with one error per failed item', async () => {
    r = await rig((_req, res) => json(res, 200, { ingested: 1, failed: 1, errors: [{ unique_id: 'b', error: 'bad created_at' }] }));
    const got = await new FeedbackClient(r.transport).ingest('s', [{ unique_id: 'a', body: 'x' }, { unique_id: 'b', body: 'y' }]);
    expect(got.failed).toBe(1);
    expect(got.errors).toEqual([{ unique_id: 'b', error: 'bad created_at' }]);
  });

  it('retries a 503 when every item and part has a unique_id (upserts make a resend harmless), not otherwise', async () => {
    const handler = (_req: unknown, res: Parameters<Parameters<typeof rig>[0] & {}>[1], n: number) =>
      n === 1 || n === 3 ? json(res, 503, { error: 'busy' }) : json(res, 200, { ingested: 1, failed: 0, errors: [] });
    r = await rig(handler);
    const c = new FeedbackClient(r.transport);
    await c.ingest('s', [ITEM]);
    expect(r.server.requests).toHaveLength(2);
    await expect(c.ingest('s', [{ body: 'no id' }])).rejects.toMatchObject({ status: 503 });
    expect(r.server.requests).toHaveLength(3);
  });

  it('appending parts and call transcripts: items without body are accepted', async () => {
    r = await rig((_req, res) => json(res, 200, { ingested: 2, failed: 0, errors: [] }));
    await new FeedbackClient(r.transport).ingest('calls', [
      { unique_id: 'ticket-1', conversation_parts: [{ unique_id: 'p2', body: 'Chrome' }] },
      { unique_id: 'call-9', conversation_parts: [{ unique_id: 'c1', author: 'agent', body: 'Hello' }, { unique_id: 'c2', author: 'caller', body: 'Hi' }] },
    ]);
    expect(JSON.parse(r.only().body).items[0]).not.toHaveProperty('body');
  });

  it('refuses invalid requests before sending anything', async () => {
    r = await rig();
    const c = new FeedbackClient(r.transport);
    const bad: [() => Promise<unknown>, string][] = [
      [() => c.ingest('', [ITEM]), 'source_id'],
      [() => c.ingest('s', []), 'items'],
      [() => c.ingest('s', Array.from({ length: 101 }, (_, i) => ({ unique_id: `i${i}`, body: 'x' }))), 'items'],
      [() => c.ingest('s', [{ unique_id: 'a', conversation_parts: [{ body: '' }] }]), 'items[0].conversation_parts[0].body'],
      [() => c.ingest('s', [{ unique_id: 'a', conversation_parts: [{} as never] }]), 'items[0].conversation_parts[0].body'],
      [() => c.ingest('s', [{ unique_id: 'a', conversation_parts: [{ body: 'x', conversation_parts: [] } as never] }]), 'items[0].conversation_parts[0].conversation_parts'],
      [() => c.ingest('s', [{ unique_id: 'a', body: 'x', created_at: 'yesterday' }]), 'items[0].created_at'],
      [() => c.ingest('s', [{ unique_id: 7 as never, body: 'x' }]), 'items[0].unique_id'],
      [() => c.ingest('s', Array.from({ length: 100 }, (_, i) => ({ unique_id: `i${i}`, body: 'é'.repeat(25_000) }))), 'items'],
    ];
    await expectRefused(r, bad);
  });

  it('100 items just under 5 MB are sent', async () => {
    r = await rig((_req, res) => json(res, 200, { ingested: 100, failed: 0, errors: [] }));
    const items = Array.from({ length: 100 }, (_, i) => ({ unique_id: `i${i}`, body: 'x'.repeat(49_900) }));
    await new FeedbackClient(r.transport).ingest('s', items);
    expect(r.only().body.length).toBeLessThanOrEqual(5_000_000);
  });

  it('a response without counts is MalformedResponseError', async () => {
    r = await rig((_req, res) => json(res, 200, { ok: true }));
    await expect(new FeedbackClient(r.transport).ingest('s', [ITEM])).rejects.toBeInstanceOf(MalformedResponseError);
  });
});
