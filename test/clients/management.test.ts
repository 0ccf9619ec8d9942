/**
 * ExperimentsClient and FlagsClient on the scripted loopback server (helpers.ts `rig`): the exact method, path, Bearer
 * auth and JSON body of every operation, what they refuse before sending, and answers the sandbox never gives (a
 * numeric created id, a list that is not an array, a POST answered 405 that must not be retried, counted here). What
 * they make of real answers — records, versions, inclusions, deployments, 400/401/404/405/409 — runs against the
 * sandbox's management family: test/sandbox/management-family.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/http/index.js';
import { ExperimentsClient, FlagsClient, MalformedResponseError } from '../../src/clients/index.js';
import { BEARER, expectRefused, json, requestOf, rig, text, type Rig } from './helpers.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

/** Answers GETs with JSON by path, mutations with `OK`, POST /api/1/{kind} with {id, url}. */
async function managementRig(): Promise<Rig> {
  return rig((req, res) => {
    const path = new URL(req.url!, 'http://x').pathname;
    if (req.method === 'GET') {
      if (
        /\/(versions|variants|deployments|users|cohorts)$/.test(path) ||
        /^\/api\/1\/(experiments|flags)$/.test(path)
      ) {
        return json(
          res,
          200,
          path.endsWith('/cohorts') ? ['c1', 'c2'] : [{ id: 'x1', createdAt: '2026-01-01T00:00:00Z' }],
        );
      }
      return json(res, 200, { id: 'x1', key: 'k', enabled: true, extra: 1 });
    }
    if (req.method === 'POST' && /^\/api\/1\/(experiments|flags)$/.test(path))
      return json(res, 200, { id: 123, url: 'https://app/x/123' });
    text(res, 200, 'OK');
  });
}

const KINDS = [
  ['experiments', (t: Rig['transport']) => new ExperimentsClient(t)],
  ['flags', (t: Rig['transport']) => new FlagsClient(t)],
] as const;

describe.each(KINDS)('%s management client', (kind, make) => {
  const base = `/api/1/${kind}`;

  it('sends every operation with the right method, path, Bearer auth and JSON body', async () => {
    r = await managementRig();
    const c = make(r.transport);
    const calls: [() => Promise<unknown>, string, string, unknown][] = [
      [() => c.list({ limit: 1000 }), 'GET', `${base}?limit=1000`, undefined],
      [() => c.list(), 'GET', base, undefined],
      [() => c.get('exp/1'), 'GET', `${base}/exp%2F1`, undefined],
      [() => c.listVersions('e1'), 'GET', `${base}/e1/versions`, undefined],
      [() => c.getVersion('e1', 7), 'GET', `${base}/e1/versions/7`, undefined],
      [() => c.listVariants('e1'), 'GET', `${base}/e1/variants`, undefined],
      [() => c.getVariant('e1', 'on off'), 'GET', `${base}/e1/variants/on%20off`, undefined],
      [() => c.listVariantUsers('e1', 'on'), 'GET', `${base}/e1/variants/on/users`, undefined],
      [() => c.listVariantCohorts('e1', 'on'), 'GET', `${base}/e1/variants/on/cohorts`, undefined],
      [
        () => c.createVariant('e1', { key: 'on', name: 'On', payload: { a: 1 }, rolloutWeight: 1 }),
        'POST',
        `${base}/e1/variants`,
        { key: 'on', name: 'On', payload: { a: 1 }, rolloutWeight: 1 },
      ],
      [
        () => c.updateVariant('e1', 'on', { description: 'd' }),
        'PATCH',
        `${base}/e1/variants/on`,
        { description: 'd' },
      ],
      [() => c.deleteVariant('e1', 'on'), 'DELETE', `${base}/e1/variants/on`, undefined],
      [
        () => c.addVariantUsers('e1', 'on', ['u1', 'd2']),
        'POST',
        `${base}/e1/variants/on/users`,
        { inclusions: ['u1', 'd2'] },
      ],
      [() => c.addVariantCohorts('e1', 'on', ['c1']), 'POST', `${base}/e1/variants/on/cohorts`, { inclusions: ['c1'] }],
      [() => c.removeVariantUser('e1', 'on', 3), 'DELETE', `${base}/e1/variants/on/users/3`, undefined],
      [() => c.removeAllVariantUsers('e1', 'on'), 'DELETE', `${base}/e1/variants/on/users`, undefined],
      [
        () => c.bulkRemoveVariantUsers('e1', 'on', ['u1', 'u2']),
        'DELETE',
        `${base}/e1/variants/on/bulk-delete-users`,
        { users: ['u1', 'u2'] },
      ],
      [
        () => c.bulkRemoveVariantCohorts('e1', 'on', ['c1']),
        'DELETE',
        `${base}/e1/variants/on/bulk-delete-cohorts`,
        { users: ['c1'] },
      ],
      [() => c.listDeployments('e1'), 'GET', `${base}/e1/deployments`, undefined],
      [() => c.addDeployments('e1', ['dep1']), 'POST', `${base}/e1/deployments`, { deployments: ['dep1'] }],
      [() => c.removeDeployment('e1', 'dep1'), 'DELETE', `${base}/e1/deployments/dep1`, undefined],
      [
        () => c.update('e1', { enabled: false, rolloutPercentage: 50 }),
        'PATCH',
        `${base}/e1`,
        { enabled: false, rolloutPercentage: 50 },
      ],
      [
        () => c.create({ projectId: 'p1', key: 'new-key', variants: [{ key: 'on' }], rolloutWeights: { on: 1 } }),
        'POST',
        base,
        { projectId: 'p1', key: 'new-key', variants: [{ key: 'on' }], rolloutWeights: { on: 1 } },
      ],
    ];
    for (const [call, method, url, body] of calls) {
      const seen = await requestOf(r, call);
      expect(`${seen.method} ${seen.url}`).toBe(`${method} ${url}`);
      expect(seen.headers.authorization).toBe(BEARER);
      expect(seen.headers.accept).toBe('application/json');
      if (body === undefined) {
        expect(seen.body).toBe('');
        expect(seen.headers['content-type']).toBeUndefined();
      } else {
        expect(seen.headers['content-type']).toBe('application/json');
        expect(JSON.parse(seen.body)).toEqual(body);
      }
      expect(seen.query.get('api_key')).toBeNull();
    }
  });

  it('parses records, arrays and a numeric created id (as a string)', async () => {
    r = await managementRig();
    const c = make(r.transport);
    expect(await c.list({ limit: 5 })).toEqual([{ id: 'x1', createdAt: '2026-01-01T00:00:00Z' }]);
    expect(await c.get('x1')).toEqual({ id: 'x1', key: 'k', enabled: true, extra: 1 });
    expect(await c.listVariantCohorts('x1', 'on')).toEqual(['c1', 'c2']);
    expect(await c.create({ projectId: 'p', key: 'k' })).toEqual({ id: '123', url: 'https://app/x/123' });
    await expect(c.deleteVariant('x1', 'on')).resolves.toBeUndefined();
  });

  it('refuses invalid requests before sending anything', async () => {
    r = await managementRig();
    const c = make(r.transport);
    const bad: [() => Promise<unknown>, string][] = [
      [() => c.list({ limit: 0 }), 'limit'],
      [() => c.get(''), 'id'],
      [
        () =>
          c.bulkRemoveVariantUsers(
            'e',
            'v',
            Array.from({ length: 101 }, (_, i) => `u${i}`),
          ),
        'users',
      ],
      [
        () =>
          c.bulkRemoveVariantCohorts(
            'e',
            'v',
            Array.from({ length: 101 }, (_, i) => `c${i}`),
          ),
        'users',
      ],
      [() => c.bulkRemoveVariantUsers('e', 'v', []), 'users'],
      [() => c.addVariantUsers('e', 'v', ['ok', '']), 'inclusions[1]'],
      [() => c.createVariant('e', { name: 'no key' } as never), 'variant.key'],
      [() => c.updateVariant('e', 'v', {}), 'variant'],
      [() => c.update('e', {} as never), 'body'],
      [() => c.update('e', { rolloutPercentage: 12.5 }), 'rolloutPercentage'],
      [() => c.update('e', { rolloutPercentage: 150 }), 'rolloutPercentage'],
      [() => c.update('e', { rolloutPercentage: -1 }), 'rolloutPercentage'],
      [() => c.update('e', { tags: ['a', 1] } as never), 'tags[1]'],
      [() => c.create({ projectId: 'p' } as never), 'key'],
      [
        () =>
          c.create({
            projectId: 'p',
            key: 'k',
            targetSegments: [{ conditions: [{ prop: 'country', op: 'equals', type: 'property', values: ['x'] }] }],
          } as never),
        'targetSegments[0].conditions[0].op',
      ],
      [() => c.create({ projectId: 'p', key: 'k', rolloutWeights: { on: 'half' } } as never), 'rolloutWeights.on'],
    ];
    await expectRefused(r, bad);
  });

  it('surfaces a non-array list response as MalformedResponseError', async () => {
    r = await rig((_req, res) => json(res, 200, { not: 'an array' }));
    await expect(make(r.transport).list()).rejects.toBeInstanceOf(MalformedResponseError);
  });
});

describe('kind-specific rules', () => {
  it('experiments take exposureEvent, startDate and experimentType; flags refuse them and take bucketingUnit', async () => {
    r = await managementRig();
    const exp = new ExperimentsClient(r.transport);
    const flags = new FlagsClient(r.transport);
    const edit = {
      startDate: '2026-02-01T00:00:00Z',
      experimentType: 'a-b-test',
      exposureEvent: {
        event_type: 'view',
        filters: [
          {
            group_type: 'User',
            subprop_key: 'country',
            subprop_op: 'is not' as const,
            subprop_type: 'user',
            subprop_value: ['FR'],
          },
        ],
      },
    };
    await exp.update('e1', edit);
    expect(JSON.parse(r.only().body)).toEqual(edit);
    await expect(flags.update('f1', { exposureEvent: edit.exposureEvent } as never)).rejects.toMatchObject({
      field: 'body.exposureEvent',
    });
    await expect(exp.update('e1', { bucketingUnit: 'org' } as never)).rejects.toMatchObject({
      field: 'body.bucketingUnit',
    });
    await expect(exp.update('e1', { startDate: 'next tuesday' })).rejects.toMatchObject({ field: 'startDate' });
    await expect(
      exp.update('e1', {
        exposureEvent: {
          event_type: 'v',
          filters: [{ ...edit.exposureEvent.filters[0]!, subprop_op: 'set is' as never }],
        },
      }),
    ).rejects.toMatchObject({
      field: 'exposureEvent.filters[0].subprop_op',
    });
    await flags.update('f1', { bucketingUnit: 'org', enabled: true });
    expect(JSON.parse(r.server.requests[1]!.body)).toEqual({ bucketingUnit: 'org', enabled: true });
    expect(r.server.requests).toHaveLength(2);
  });

  it('version comparison condition ops are allowed for flags only; experimentType is for experiments only', async () => {
    r = await managementRig();
    const seg = {
      conditions: [{ prop: 'version', op: 'version less than' as const, type: 'property', values: ['2.0'] }],
    };
    await new FlagsClient(r.transport).create({ projectId: 'p', key: 'k', targetSegments: [seg] });
    expect(r.server.requests).toHaveLength(1);
    await expect(
      new ExperimentsClient(r.transport).create({ projectId: 'p', key: 'k', targetSegments: [seg as never] }),
    ).rejects.toMatchObject({
      field: 'targetSegments[0].conditions[0].op',
    });
    await expect(
      new FlagsClient(r.transport).create({ projectId: 'p', key: 'k', experimentType: 'a-b-test' } as never),
    ).rejects.toMatchObject({
      field: 'body.experimentType',
    });
    expect(r.server.requests).toHaveLength(1);
  });

  it('a flag variant takes at most 2,000 user inclusions per request; experiments are not capped locally', async () => {
    r = await managementRig();
    const many = Array.from({ length: 2001 }, (_, i) => `u${i}`);
    await expect(new FlagsClient(r.transport).addVariantUsers('f', 'on', many)).rejects.toMatchObject({
      field: 'inclusions',
    });
    expect(r.server.requests).toHaveLength(0);
    await new FlagsClient(r.transport).addVariantUsers('f', 'on', many.slice(0, 2000));
    await new ExperimentsClient(r.transport).addVariantUsers('e', 'on', many);
    expect(r.server.requests).toHaveLength(2);
  });

  it('a 405 on editing a web experiment is an ApiError with the status, and the POST is not retried', async () => {
    r = await rig((_req, res) => json(res, 405, { error: 'web experiment' }));
    const err = await new ExperimentsClient(r.transport).update('e1', { enabled: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(405);
    expect(String((err as Error).message)).not.toContain('the-management-key');
    expect(r.server.requests).toHaveLength(1);
  });
});
