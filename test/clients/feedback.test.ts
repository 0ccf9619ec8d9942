/**
 * FeedbackClient. Against the sandbox (src/sandbox/families/feedback.ts) for what it sends and what it makes of the
 * answers; the partial-failure answer is tested there too (test/sandbox/feedback-family.test.ts). On the scripted
 * loopback server (helpers.ts `rig`) only what the sandbox cannot show: a header it does not check, an answer it never
 * gives (a 503 on this route, a body without counts).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FeedbackClient, MalformedResponseError, Transport, type FeedbackItem } from '../../src/clients/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { json, refused, rig, type Rig } from './helpers.js';

const ITEM: FeedbackItem = {
  unique_id: 'ticket-1',
  body: 'The export button does nothing 😕',
  author: 'Ana',
  user_id: 'u1',
  url: 'https://support.example/t/1',
  created_at: '2026-01-31T10:00:00Z',
  conversation_parts: [{ unique_id: 'ticket-1-p1', body: 'Which browser?', email: 'agent@example.com' }],
};

describe('FeedbackClient against the sandbox', () => {
  let sb: Sandbox;
  let transport: Transport;
  let client: FeedbackClient;
  beforeAll(async () => {
    sb = await startSandbox({});
    transport = new Transport({ endpoint: sb.url, credentials: sb.credentials, retry: { retries: 0 } });
    client = new FeedbackClient(transport);
  });
  afterAll(async () => {
    await transport?.close();
    await sb?.close();
  });

  it('ingests an item with every field and its parts: the sandbox stores what was sent, under the source id', async () => {
    expect(await client.ingest('zendesk-1', [ITEM])).toEqual({ ingested: 1, failed: 0, errors: [] });
    const { conversation_parts: parts, ...fields } = ITEM;
    const [stored, ...others] = sb.feedbackItems('zendesk-1');
    expect(others).toEqual([]);
    expect(stored!.fields).toEqual(fields);
    expect([...stored!.parts.values()]).toEqual(parts);
  });

  it('appending parts and call transcripts: items without a body are sent without one', async () => {
    await client.ingest('calls', [{ unique_id: 'ticket-1', body: 'Export fails' }]);
    const got = await client.ingest('calls', [
      { unique_id: 'ticket-1', conversation_parts: [{ unique_id: 'p2', body: 'Chrome' }] },
      {
        unique_id: 'call-9',
        conversation_parts: [
          { unique_id: 'c1', author: 'agent', body: 'Hello' },
          { unique_id: 'c2', author: 'caller', body: 'Hi' },
        ],
      },
    ]);
    expect(got).toEqual({ ingested: 2, failed: 0, errors: [] });
    const [ticket, call] = sb.feedbackItems('calls');
    expect(ticket!.fields.body).toBe('Export fails');
    expect([...ticket!.parts.keys()]).toEqual(['p2']);
    expect(call!.fields).not.toHaveProperty('body');
    expect([...call!.parts.values()].map((p) => p.author)).toEqual(['agent', 'caller']);
  });

  it('100 items just under 5 MB are accepted (the sandbox refuses a larger payload)', async () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ unique_id: `i${i}`, body: 'x'.repeat(49_900) }));
    expect(await client.ingest('large', items)).toEqual({ ingested: 100, failed: 0, errors: [] });
  });

  it('refuses invalid requests before sending anything', async () => {
    const before = sb.stats().apiRequests;
    const bad: [() => Promise<unknown>, string][] = [
      [() => client.ingest('', [ITEM]), 'source_id'],
      [() => client.ingest('s', []), 'items'],
      [
        () =>
          client.ingest(
            's',
            Array.from({ length: 101 }, (_, i) => ({ unique_id: `i${i}`, body: 'x' })),
          ),
        'items',
      ],
      [
        () => client.ingest('s', [{ unique_id: 'a', conversation_parts: [{ body: '' }] }]),
        'items[0].conversation_parts[0].body',
      ],
      [
        () => client.ingest('s', [{ unique_id: 'a', conversation_parts: [{} as never] }]),
        'items[0].conversation_parts[0].body',
      ],
      [
        () =>
          client.ingest('s', [
            { unique_id: 'a', conversation_parts: [{ body: 'x', conversation_parts: [] } as never] },
          ]),
        'items[0].conversation_parts[0].conversation_parts',
      ],
      [() => client.ingest('s', [{ unique_id: 'a', body: 'x', created_at: 'yesterday' }]), 'items[0].created_at'],
      [() => client.ingest('s', [{ unique_id: 7 as never, body: 'x' }]), 'items[0].unique_id'],
      [
        () =>
          client.ingest(
            's',
            Array.from({ length: 100 }, (_, i) => ({ unique_id: `i${i}`, body: 'é'.repeat(25_000) })),
          ),
        'items',
      ],
    ];
    for (const [call, field] of bad) await refused(call(), field);
    expect(sb.stats().apiRequests).toBe(before);
    expect(sb.feedbackItems('s')).toEqual([]);
  });
});

describe('FeedbackClient on a scripted server (what the sandbox does not show)', () => {
  let r: Rig | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  it('sends the body as application/json', async () => {
    r = await rig((_req, res) => json(res, 200, { ingested: 1, failed: 0, errors: [] }));
    await new FeedbackClient(r.transport).ingest('zendesk-1', [ITEM]);
    expect(r.only().headers['content-type']).toBe('application/json');
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

  it('a response without counts is MalformedResponseError', async () => {
    r = await rig((_req, res) => json(res, 200, { ok: true }));
    await expect(new FeedbackClient(r.transport).ingest('s', [ITEM])).rejects.toBeInstanceOf(MalformedResponseError);
  });
});
