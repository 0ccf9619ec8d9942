import { afterEach, describe, expect, it } from 'vitest';
import { FeedbackClient, Transport, type FeedbackItem } from '../../src/clients/index.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';

let sb: Sandbox | undefined;
let transport: Transport | undefined;
afterEach(async () => {
  await transport?.close();
  await sb?.close();
  sb = transport = undefined;
});

async function client(): Promise<{ sandbox: Sandbox; feedback: FeedbackClient }> {
  sb = await startSandbox({});
  transport = new Transport({ endpoint: sb.url, credentials: sb.credentials, retry: { retries: 0 } });
  return { sandbox: sb, feedback: new FeedbackClient(transport) };
}

const TICKET: FeedbackItem = {
  unique_id: 'ticket-1',
  body: 'The export button does nothing',
  conversation_parts: [{ unique_id: 'p1', body: 'Which browser?' }],
};

describe('sandbox feedback family over HTTP (FeedbackClient)', () => {
  it('upserts by unique_id: the same data again changes nothing; new parts are added to the item', async () => {
    const { sandbox, feedback } = await client();
    expect(await feedback.ingest('zendesk', [TICKET, { unique_id: 'ticket-2', body: 'Love it' }])).toEqual({
      ingested: 2,
      failed: 0,
      errors: [],
    });
    expect(await feedback.ingest('zendesk', [TICKET])).toEqual({ ingested: 1, failed: 0, errors: [] });
    expect(sandbox.feedbackItems('zendesk').map((i) => [i.unique_id, [...i.parts.keys()]])).toEqual([
      ['ticket-1', ['p1']],
      ['ticket-2', []],
    ]);
    await feedback.ingest('zendesk', [
      { unique_id: 'ticket-1', conversation_parts: [{ unique_id: 'p2', body: 'Firefox' }] },
    ]);
    const [ticket] = sandbox.feedbackItems('zendesk');
    expect([...ticket!.parts.keys()]).toEqual(['p1', 'p2']);
    expect(ticket!.fields.body).toBe(TICKET.body);
    expect(sandbox.feedbackItems('other-source')).toEqual([]);
  });

  it('reports a refused item in errors and ingests the others', async () => {
    const { feedback } = await client();
    const got = await feedback.ingest('s', [{ unique_id: 'new-without-body' }, { unique_id: 'ok', body: 'fine' }]);
    expect(got.ingested).toBe(1);
    expect(got.failed).toBe(1);
    expect(got.errors).toEqual([{ unique_id: 'new-without-body', error: expect.stringContaining('body') }]);
  });

  it('answers 401 without the project credentials', async () => {
    sb = await startSandbox({});
    transport = new Transport({
      endpoint: sb.url,
      credentials: { apiKey: sb.credentials.apiKey, secretKey: 'wrong' },
      retry: { retries: 0 },
    });
    await expect(new FeedbackClient(transport).ingest('s', [TICKET])).rejects.toMatchObject({ status: 401 });
  });
});
