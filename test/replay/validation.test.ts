import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Transport, ValidationError } from '../../src/http/index.js';
import {
  SessionReplayClient,
  buildFilesParams,
  buildListParams,
  type ListReplaysQuery,
} from '../../src/replay/index.js';
import { json, startTestServer, type TestServer } from '../http/helpers/test-server.js';

let server: TestServer;
let transport: Transport;
let client: SessionReplayClient;

beforeAll(async () => {
  server = await startTestServer((_q, res) =>
    json(res, 200, { session_replays: [], files: [], next_page_token: null }),
  );
  transport = new Transport({ endpoint: server.url, credentials: { apiKey: 'k', secretKey: 's' } });
  client = new SessionReplayClient(transport);
});
afterAll(async () => {
  await transport.close();
  await server.close();
});

const ids = (n: number) => Array.from({ length: n }, (_, i) => `device-${i}/${1700000000000 + i}`);

// Every row of the spec's 400 table, plus the page-size and version bounds; `field` is the parameter named.
const listCases: [string, ListReplaysQuery, string | null, string][] = [
  ['replay id without slash', { replayIds: ['abc'] }, null, 'replay_id'],
  ['replay id with leading slash', { replayIds: ['/abc'] }, null, 'replay_id'],
  ['replay id with trailing slash', { replayIds: ['abc/'] }, null, 'replay_id'],
  ['replay id with a leading slash and a device part', { replayIds: ['/a/1'] }, null, 'replay_id'],
  ['replay id that is just a slash', { replayIds: ['/'] }, null, 'replay_id'],
  ['empty replay id', { replayIds: [''] }, null, 'replay_id'],
  ['replay id with a lone high surrogate', { replayIds: ['dev/1700000000000\ud800'] }, null, 'replay_id'],
  [
    'replay id with a lone low surrogate in the device part',
    { replayIds: ['d\udc00ev/1700000000000'] },
    null,
    'replay_id',
  ],
  ['page token with a lone surrogate', {}, 'tok\ud83d', 'page_token'],
  ['101 replay ids', { replayIds: ids(101) }, null, 'replay_id'],
  ['empty replay id list', { replayIds: [] }, null, 'replay_id'],
  ['amplitude_id not an integer', { platformId: 'abc' }, null, 'amplitude_id'],
  ['amplitude_id a fraction', { platformId: 1.5 }, null, 'amplitude_id'],
  ['amplitude_id a decimal string', { platformId: '12.0' }, null, 'amplitude_id'],
  ['amplitude_id with replay_id', { platformId: 123, replayIds: ['d/1'] }, null, 'amplitude_id'],
  ['replay_id with page_token', { replayIds: ['d/1'] }, 'tok', 'page_token'],
  ['sort order other than asc/desc', { sortOrder: 'up' as never }, null, 'sort_order'],
  ['page size 0', { pageSize: 0 }, null, 'page_size'],
  ['page size fractional', { pageSize: 10.5 }, null, 'page_size'],
  ['unreadable start time', { startTime: 'yesterday' }, null, 'start_time'],
  ['invalid Date end time', { endTime: new Date(Number.NaN) }, null, 'end_time'],
];

describe('list validation (no request is made)', () => {
  for (const [name, q, token, field] of listCases) {
    it(name, async () => {
      const before = server.requests.length;
      const thrown = (() => {
        try {
          buildListParams(q, token);
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(thrown).toBeInstanceOf(ValidationError);
      expect((thrown as ValidationError).field).toBe(field);
      await expect(client.getReplaysPage({ ...q, pageToken: token })).rejects.toMatchObject({ field });
      if (token === null) expect(() => client.listReplays(q)).toThrow(ValidationError);
      expect(server.requests.length).toBe(before);
    });
  }

  it('accepts the edges: 100 ids, page sizes 1 and 200, numeric-string ids', () => {
    expect(buildListParams({ replayIds: ids(100) }).replay_id).toHaveLength(100);
    // Split at the last slash: a custom device id may hold one; a session id never does.
    expect(buildListParams({ replayIds: ['dev/ice/1700000000000'] }).replay_id).toEqual(['dev/ice/1700000000000']);
    // A surrogate pair is one character (U+1F600), not a lone surrogate.
    expect(buildListParams({ replayIds: ['dev\ud83d\ude00/1'] }).replay_id).toEqual(['dev😀/1']);
    expect(buildListParams({ pageSize: 1 }).page_size).toBe(1);
    expect(buildListParams({ pageSize: 200 }).page_size).toBe(200);
    expect(buildListParams({}).page_size).toBe(50);
    expect(buildListParams({ platformId: '123456789' }).amplitude_id).toBe('123456789');
    expect(buildListParams({ startTime: '2026-01-01T00:00:00' }).start_time).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('files validation (no request is made)', () => {
  const cases: [string, string, Parameters<typeof buildFilesParams>[1], string][] = [
    ['bad replay id', 'nodevice', {}, 'replay_id'],
    ['leading slash', '/123', {}, 'replay_id'],
    ['lone surrogate', 'dev/\ud800', {}, 'replay_id'],
    ['version 1', 'd/1', { version: 1 as never }, 'version'],
    ['page size 0', 'd/1', { pageSize: 0 }, 'page_size'],
  ];
  for (const [name, id, o, field] of cases) {
    it(name, async () => {
      const before = server.requests.length;
      expect(() => buildFilesParams(id, o)).toThrow(ValidationError);
      await expect(client.getFilesPage(id, o)).rejects.toMatchObject({ field });
      expect(() => client.listReplayFiles(id, o)).toThrow(ValidationError);
      expect(server.requests.length).toBe(before);
    });
  }

  it('defaults: version 3, page size 100; max 1000', () => {
    expect(buildFilesParams('d/1', {})).toEqual({ replay_id: 'd/1', version: 3, page_size: 100 });
    expect(buildFilesParams('d/1', { version: 2, pageSize: 1000 }, 't')).toEqual({
      replay_id: 'd/1',
      version: 2,
      page_size: 1000,
      page_token: 't',
    });
  });
});
