import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  ExperimentsClient,
  FlagsClient,
  ValidationError,
  type Transport,
} from '../../src/clients/index.js';
import { FamilyRig } from './family-rig.js';

let rig: FamilyRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function clients(): Promise<{ rig: FamilyRig; experiments: ExperimentsClient; flags: FlagsClient }> {
  rig = await FamilyRig.start();
  const t = rig.transport();
  return { rig, experiments: new ExperimentsClient(t), flags: new FlagsClient(t) };
}

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe.each(['experiments', 'flags'] as const)('sandbox management family: %s', (kind) => {
  const first = kind === 'experiments' ? 10001 : 20001;

  it('create → get → update → list: ids from a fixed start, newest first, edits kept, timestamps UTC', async () => {
    const { rig, ...c } = await clients();
    const api = c[kind];
    const a = await api.create({
      projectId: 'p1',
      key: 'checkout',
      name: 'Checkout',
      variants: [{ key: 'control' }, { key: 'treatment' }],
      rolloutWeights: { control: 1, treatment: 1 },
    });
    expect(a).toEqual({ id: String(first), url: `${rig.sandbox.url}/api/1/${kind}/${first}` });
    const b = await api.create({ projectId: 'p1', key: 'banner', deployments: ['dep-1'] });
    expect(b.id).toBe(String(first + 1));

    const got = await api.get(a.id);
    expect(got).toMatchObject({
      id: a.id,
      key: 'checkout',
      name: 'Checkout',
      projectId: 'p1',
      enabled: false,
      variants: [{ key: 'control' }, { key: 'treatment' }],
    });
    expect(got.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);

    await expect(api.update(a.id, { enabled: true, rolloutPercentage: 50, tags: ['q4'] })).resolves.toBeUndefined();
    expect(await api.get(a.id)).toMatchObject({ enabled: true, rolloutPercentage: 50, tags: ['q4'], name: 'Checkout' });

    expect((await api.list()).map((r) => r.id)).toEqual([b.id, a.id]);
    expect((await api.list({ limit: 1 })).map((r) => r.id)).toEqual([b.id]);
    expect((await api.list({ limit: 1000 }))[1]).toMatchObject({ id: a.id, enabled: true });
  });

  it('variants, user and cohort inclusions, deployments and versions stay consistent', async () => {
    const c = await clients();
    const api = c[kind];
    const { id } = await api.create({ projectId: 'p1', key: 'k', variants: [{ key: 'on' }] });
    await api.createVariant(id, { key: 'off', name: 'Off', payload: { color: 'red' }, rolloutWeight: 1 });
    await api.updateVariant(id, 'off', { description: 'the old button' });
    expect(await api.getVariant(id, 'off')).toEqual({
      key: 'off',
      name: 'Off',
      description: 'the old button',
      payload: { color: 'red' },
      rolloutWeight: 1,
    });
    expect((await api.listVariants(id)).map((v) => v.key)).toEqual(['on', 'off']);

    await api.addVariantUsers(id, 'on', ['u1', 'u2', 'd3', 'u1']);
    expect(await api.listVariantUsers(id, 'on')).toEqual([
      { index: 0, inclusion: 'u1' },
      { index: 1, inclusion: 'u2' },
      { index: 2, inclusion: 'd3' },
    ]);
    await api.removeVariantUser(id, 'on', 1);
    await api.bulkRemoveVariantUsers(id, 'on', ['d3', 'never-included']);
    expect(await api.listVariantUsers(id, 'on')).toEqual([{ index: 0, inclusion: 'u1' }]);
    await api.removeAllVariantUsers(id, 'on');
    expect(await api.listVariantUsers(id, 'on')).toEqual([]);

    await api.addVariantCohorts(id, 'on', ['c1', 'c2']);
    await api.bulkRemoveVariantCohorts(id, 'on', ['c1']);
    expect(await api.listVariantCohorts(id, 'on')).toEqual(['c2']);

    await api.addDeployments(id, ['dep-a', 'dep-b']);
    await api.removeDeployment(id, 'dep-a');
    expect(await api.listDeployments(id)).toEqual([{ id: 'dep-b' }]);

    await api.deleteVariant(id, 'off');
    expect((await api.listVariants(id)).map((v) => v.key)).toEqual(['on']);
    await expect(api.getVariant(id, 'off')).rejects.toMatchObject({ status: 404 });

    // The create and each of the 11 changes above stored a version; newest first.
    const versions = await api.listVersions(id);
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 12 }, (_, i) => 12 - i));
    expect(await api.getVersion(id, 1)).toMatchObject({
      id: '1',
      version: 1,
      config: { id, key: 'k', variants: [{ key: 'on' }], deployments: [] },
    });
    expect((await api.getVersion(id, '12')).config).toMatchObject({
      variants: [{ key: 'on' }],
      deployments: ['dep-b'],
    });
  });

  it('answers 404 for unknown records, versions, inclusion indexes and deployments; 409 for a key in use', async () => {
    const c = await clients();
    const api = c[kind];
    expect((await rejection(api.get('999'))).status).toBe(404);
    const { id } = await api.create({ projectId: 'p', key: 'k', variants: [{ key: 'on' }] });
    expect((await rejection(api.create({ projectId: 'p', key: 'k' }))).status).toBe(409);
    expect((await rejection(api.createVariant(id, { key: 'on' }))).status).toBe(409);
    expect((await rejection(api.getVersion(id, 2))).status).toBe(404);
    expect((await rejection(api.addVariantUsers(id, 'nope', ['u']))).status).toBe(404);
    expect((await rejection(api.removeVariantUser(id, 'on', 0))).status).toBe(404);
    expect((await rejection(api.removeDeployment(id, 'dep-x'))).status).toBe(404);
  });

  it('refuses bad bodies itself (what the typed client would refuse before sending)', async () => {
    const { rig, ...c } = await clients();
    const { id } = await c[kind].create({ projectId: 'p', key: 'k', variants: [{ key: 'on' }] });
    const base = `/api/1/${kind}`;
    const bad: Array<[string, string, unknown, RegExp]> = [
      ['POST', base, { projectId: 'p' }, /key must be a non-empty string/],
      [
        'POST',
        base,
        { key: 'x', targetSegments: [{ conditions: [{ prop: 'c', op: 'equals', type: 'property', values: [] }] }] },
        /conditions\[0\]\.op must be one of/,
      ],
      ['PATCH', `${base}/${id}`, {}, /at least one field/],
      ['PATCH', `${base}/${id}`, { rolloutPercentage: 101 }, /rolloutPercentage must be an integer from 0 to 100/],
      [
        'PATCH',
        `${base}/${id}`,
        { [kind === 'flags' ? 'exposureEvent' : 'bucketingUnit']: 'x' },
        /is not a field accepted here/,
      ],
      ['POST', `${base}/${id}/variants`, { name: 'no key' }, /variant\.key/],
      [
        'DELETE',
        `${base}/${id}/variants/on/bulk-delete-users`,
        { users: Array.from({ length: 101 }, (_, i) => `u${i}`) },
        /1 to 100 items/,
      ],
      ['POST', `${base}/${id}/deployments`, { deployments: [] }, /deployments must hold at least 1/],
    ];
    for (const [method, path, body, message] of bad) {
      const res = await rig.management(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(400);
      expect((res.body as { message: string }).message).toMatch(message);
    }
    expect((await rig.management('GET', `${base}?limit=0`)).status).toBe(400);
    expect((await rig.management('PUT', `${base}/${id}`, { enabled: true })).status).toBe(405);
    expect((await c[kind].get(id)).enabled).toBe(false);
  });

  it('needs the management key as a Bearer token: a wrong key and Basic auth get 401', async () => {
    rig = await FamilyRig.start({ managementKey: 'mk-configured' });
    const { sandbox } = rig;
    expect(sandbox.credentials.managementKey).toBe('mk-configured');
    const make = kind === 'flags' ? (t: Transport) => new FlagsClient(t) : (t: Transport) => new ExperimentsClient(t);
    const wrong = make(rig.transport({ ...sandbox.credentials, managementKey: 'mk-wrong' }));
    const err = await rejection(wrong.list());
    expect(err).toBeInstanceOf(AuthError);
    expect(err.status).toBe(401);
    const basic = `Basic ${Buffer.from(`${sandbox.credentials.apiKey}:${sandbox.credentials.secretKey}`).toString('base64')}`;
    const res = await rig.management('GET', `/api/1/${kind}`, undefined, basic);
    expect(res.status).toBe(401);
    expect((res.body as { message: string }).message).toContain('Bearer');
    expect(sandbox.stats().unauthorized).toBe(2);
    await expect(make(rig.transport()).list()).resolves.toEqual([]);
  });

  it('the client refuses invalid calls before sending: the sandbox sees nothing', async () => {
    const { rig, ...c } = await clients();
    const api = c[kind];
    for (const call of [
      () => api.list({ limit: 0 }),
      () => api.create({ projectId: 'p' } as never),
      () => api.updateVariant('1', 'v', {}),
    ]) {
      await expect(call()).rejects.toBeInstanceOf(ValidationError);
    }
    expect(rig.sandbox.stats().apiRequests).toBe(0);
  });
});

describe('sandbox management family: kind-specific rules', () => {
  it('a flag variant holds at most 2,000 user inclusions (400); an experiment variant is not capped', async () => {
    const { flags, experiments } = await clients();
    const users = (from: number, n: number) => Array.from({ length: n }, (_, i) => `user-${from + i}`);
    const flag = await flags.create({ projectId: 'p', key: 'f', variants: [{ key: 'on' }] });
    await flags.addVariantUsers(flag.id, 'on', users(0, 1500));
    const err = await rejection(flags.addVariantUsers(flag.id, 'on', users(1500, 501)));
    expect(err.status).toBe(400);
    expect(await flags.listVariantUsers(flag.id, 'on')).toHaveLength(1500);
    await flags.addVariantUsers(flag.id, 'on', users(1000, 1000)); // 500 of them are new: exactly 2,000
    expect(await flags.listVariantUsers(flag.id, 'on')).toHaveLength(2000);
    const exp = await experiments.create({ projectId: 'p', key: 'e', variants: [{ key: 'on' }] });
    await experiments.addVariantUsers(exp.id, 'on', users(0, 2000));
    await experiments.addVariantUsers(exp.id, 'on', users(2000, 10));
    expect(await experiments.listVariantUsers(exp.id, 'on')).toHaveLength(2010);
  });

  it('editing an experiment of web experimentation or guides and surveys is a 405 (experimentType web / guides-and-surveys)', async () => {
    const { experiments } = await clients();
    const web = await experiments.create({ projectId: 'p', key: 'w', experimentType: 'web' });
    const err = await rejection(experiments.update(web.id, { enabled: true }));
    expect(err.status).toBe(405);
    expect((await experiments.get(web.id)).enabled).toBe(false);
    const ab = await experiments.create({ projectId: 'p', key: 'ab' });
    await experiments.update(ab.id, {
      exposureEvent: {
        event_type: 'view',
        filters: [
          { group_type: 'User', subprop_key: 'country', subprop_op: 'is', subprop_type: 'user', subprop_value: ['FR'] },
        ],
      },
      startDate: '2026-12-01T00:00:00Z',
    });
    expect(await experiments.get(ab.id)).toMatchObject({
      startDate: '2026-12-01T00:00:00Z',
      exposureEvent: { event_type: 'view' },
    });
  });

  it('the flag variant edit is taken with PATCH (the client) and with POST (the spec names both)', async () => {
    const { rig, flags } = await clients();
    const { id } = await flags.create({ projectId: 'p', key: 'f', variants: [{ key: 'on' }] });
    await flags.updateVariant(id, 'on', { name: 'On (patched)' });
    expect((await rig.management('POST', `/api/1/flags/${id}/variants/on`, { description: 'posted' })).body).toBe('OK');
    expect(await flags.getVariant(id, 'on')).toEqual({ key: 'on', name: 'On (patched)', description: 'posted' });
    await flags.updateVariant(id, 'on', { key: 'enabled' });
    expect((await flags.listVariants(id)).map((v) => v.key)).toEqual(['enabled']);
  });

  it('experiments and flags are kept apart; flags take version conditions and bucketingUnit', async () => {
    const { experiments, flags } = await clients();
    await experiments.create({ projectId: 'p', key: 'same-key' });
    const f = await flags.create({
      projectId: 'p',
      key: 'same-key',
      targetSegments: [
        { conditions: [{ prop: 'version', op: 'version less than', type: 'property', values: ['2.0'] }] },
      ],
    });
    await flags.update(f.id, { bucketingUnit: 'org', enabled: true });
    expect(await flags.get(f.id)).toMatchObject({
      bucketingUnit: 'org',
      enabled: true,
      targetSegments: [{ conditions: [{ op: 'version less than' }] }],
    });
    expect(await experiments.list()).toHaveLength(1);
    expect((await rejection(experiments.get(f.id))).status).toBe(404);
  });
});
