/**
 * Host routing per region: the transport keeps its region's hosts (no endpoint override); a dispatcher records the
 * origin each request was meant for and carries it to the loopback server over real HTTP.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Transport, type Region } from '../../src/http/index.js';
import {
  AttributionClient,
  DashboardClient,
  ExperimentsClient,
  FeedbackClient,
  FlagsClient,
  GroupIdentifyClient,
  TaxonomyClient,
  UserMappingClient,
} from '../../src/clients/index.js';
import { startTestServer, type TestServer } from '../http/helpers/test-server.js';
import { CREDS, RedirectingDispatcher, json } from './helpers.js';

let server: TestServer | undefined;
let transport: Transport | undefined;
let dispatcher: RedirectingDispatcher | undefined;
afterEach(async () => {
  await transport?.close();
  await dispatcher?.close();
  await server?.close();
  server = transport = dispatcher = undefined;
});

const EXPECTED: Record<Region, Record<string, string>> = {
  us: {
    experiments: 'https://experiment.amplitude.com',
    flags: 'https://experiment.amplitude.com',
    map: 'https://api.amplitude.com',
    getMappings: 'https://amplitude.com',
    groupIdentify: 'https://api2.amplitude.com',
    attribution: 'https://api.amplitude.com',
    taxonomy: 'https://amplitude.com',
    dashboard: 'https://amplitude.com',
    userActivity: 'https://amplitude.com',
    feedback: 'https://amplitude.com',
  },
  eu: {
    experiments: 'https://experiment.eu.amplitude.com',
    flags: 'https://experiment.eu.amplitude.com',
    map: 'https://api.eu.amplitude.com',
    getMappings: 'https://analytics.eu.amplitude.com',
    groupIdentify: 'https://api.eu.amplitude.com',
    attribution: 'https://api.eu.amplitude.com',
    taxonomy: 'https://analytics.eu.amplitude.com',
    dashboard: 'https://analytics.eu.amplitude.com',
    userActivity: 'https://analytics.eu.amplitude.com',
    feedback: 'https://eu.amplitude.com',
  },
};

describe.each(['us', 'eu'] as const)('region %s', (region) => {
  it('each family goes to its documented host', async () => {
    server = await startTestServer((req, res) => {
      const path = new URL(req.url!, 'http://x').pathname;
      if (path.startsWith('/api/1/experiments') || path.startsWith('/api/1/flags')) return json(res, 200, []);
      if (path.startsWith('/api/2/taxonomy')) return json(res, 200, { success: true, data: [] });
      if (path === '/api/2/useractivity') return json(res, 200, { userData: {}, events: [] });
      if (path === '/api/1/ai-feedback/ingest') return json(res, 200, { ingested: 1, failed: 0, errors: [] });
      if (path === '/api/2/users') return json(res, 200, { data: {} });
      json(res, 200, {});
    });
    dispatcher = new RedirectingDispatcher(server.url);
    transport = new Transport({ region, credentials: { ...CREDS }, dispatcher });
    const calls: [string, () => Promise<unknown>][] = [
      ['experiments', () => new ExperimentsClient(transport!).list()],
      ['flags', () => new FlagsClient(transport!).list()],
      ['map', () => new UserMappingClient(transport!).map([{ user_id: 'a', global_user_id: 'b' }])],
      ['getMappings', () => new UserMappingClient(transport!).getMappings(['a'])],
      [
        'groupIdentify',
        () =>
          new GroupIdentifyClient(transport!).identify([{ group_type: 't', group_value: 'v', group_properties: {} }]),
      ],
      ['attribution', () => new AttributionClient(transport!).send({ event_type: 'install', idfa: 'x' })],
      ['taxonomy', () => new TaxonomyClient(transport!).categories.list()],
      ['dashboard', () => new DashboardClient(transport!).activeUsers({ start: '20260101', end: '20260102' })],
      ['userActivity', () => new DashboardClient(transport!).userActivity(1)],
      ['feedback', () => new FeedbackClient(transport!).ingest('s', [{ unique_id: 'a', body: 'b' }])],
    ];
    const got: Record<string, string> = {};
    for (const [name, call] of calls) {
      const before = dispatcher.origins.length;
      await call();
      expect(dispatcher.origins.length).toBe(before + 1);
      got[name] = dispatcher.origins[before]!;
    }
    expect(got).toEqual(EXPECTED[region]);
    expect(server.requests).toHaveLength(calls.length);
  });
});
