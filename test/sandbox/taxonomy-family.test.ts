/**
 * The sandbox's taxonomy family over real HTTP through the typed client (TaxonomyClient): create → get → update →
 * delete → restore stay consistent, the spec's statuses and failure bodies, Basic auth, and the taxonomy limits'
 * 429 (cost per hour, concurrent cost) with Retry-After and a body naming the limit.
 */
import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, TaxonomyClient, TaxonomyFailureError } from '../../src/clients/index.js';
import type { SandboxOptions } from '../../src/sandbox/index.js';
import { FamilyRig } from './family-rig.js';

let rig: FamilyRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function client(options: SandboxOptions = {}, secretKey?: string): Promise<TaxonomyClient> {
  rig = await FamilyRig.start(options);
  return new TaxonomyClient(
    rig.transport(secretKey === undefined ? rig.sandbox.credentials : { ...rig.sandbox.credentials, secretKey }),
  );
}

describe('sandbox taxonomy family: categories and event types', () => {
  it('creates, reads, renames and deletes a category; ids count from 1; failures as the spec says', async () => {
    const t = await client();
    await t.categories.create('Onboarding');
    await t.categories.create('Checkout');
    expect(await t.categories.list()).toEqual([
      { id: 1, name: 'Onboarding' },
      { id: 2, name: 'Checkout' },
    ]);
    expect(await t.categories.get('Checkout')).toEqual({ id: 2, name: 'Checkout' });
    // Create category fails with 200 and success: false.
    const dup = await t.categories.create('Onboarding').catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(TaxonomyFailureError);
    expect(dup).toMatchObject({ status: 200, messages: [expect.stringContaining('already exists')] });
    await t.categories.rename(1, 'Start');
    expect(await t.categories.get('Start')).toEqual({ id: 1, name: 'Start' });
    await expect(t.categories.get('Onboarding')).rejects.toMatchObject({
      status: 400,
      serverMessages: [expect.stringContaining('not found')],
    });
    await expect(t.categories.rename(9, 'x')).rejects.toMatchObject({ status: 409 });
    await t.categories.delete(2);
    await expect(t.categories.delete(2)).rejects.toMatchObject({
      status: 409,
      serverMessages: [expect.stringContaining('does not exist')],
    });
    expect(await t.categories.list()).toEqual([{ id: 1, name: 'Start' }]);
  });

  it('plans an event type, edits, deletes (listed only with showDeleted) and restores it', async () => {
    const t = await client();
    await t.categories.create('Shop');
    await t.eventTypes.create({ event_type: 'Checkout Started', category: 'Shop', description: 'cart → payment' });
    const made = await t.eventTypes.get('Checkout Started');
    expect(made).toMatchObject({
      event_type: 'Checkout Started',
      category: { name: 'Shop' },
      description: 'cart → payment',
      display_name: null,
      is_active: true,
      tags: [],
      owner: null,
    });
    await t.eventTypes.update('Checkout Started', { display_name: 'Checkout' });
    expect((await t.eventTypes.get('Checkout Started')).display_name).toBe('Checkout');
    // Exists (even once deleted): 409.
    await expect(t.eventTypes.create({ event_type: 'Checkout Started' })).rejects.toMatchObject({ status: 409 });
    await t.eventTypes.delete('Checkout Started');
    expect((await t.eventTypes.list()).map((e) => e.event_type)).not.toContain('Checkout Started');
    expect((await t.eventTypes.list({ showDeleted: true })).map((e) => e.event_type)).toContain('Checkout Started');
    await expect(t.eventTypes.get('Checkout Started')).rejects.toMatchObject({ status: 400 });
    await expect(t.eventTypes.create({ event_type: 'Checkout Started' })).rejects.toMatchObject({
      status: 409,
      serverMessages: [expect.stringContaining('restore')],
    });
    await expect(t.eventTypes.update('Checkout Started', { display_name: 'x' })).rejects.toMatchObject({ status: 409 });
    await t.eventTypes.restore('Checkout Started');
    expect((await t.eventTypes.get('Checkout Started')).display_name).toBe('Checkout');
    await expect(t.eventTypes.restore('Checkout Started')).rejects.toMatchObject({ status: 400 });
  });

  it('sets visibility flags only on ingested event types; hidden ones are left out of the list', async () => {
    const t = await client();
    await t.eventTypes.create({ event_type: 'Planned' });
    await expect(t.eventTypes.update('Planned', { is_hidden_from_timeline: true })).rejects.toMatchObject({
      status: 409,
    });
    await expect(t.eventTypes.create({ event_type: 'Other', is_hidden_from_pathfinder: true })).rejects.toMatchObject({
      status: 409,
    });
    await t.eventTypes.update('Page Viewed', { is_hidden_from_dropdowns: true });
    expect((await t.eventTypes.get('Page Viewed')).is_hidden_from_dropdowns).toBe(true);
    expect((await t.eventTypes.list()).map((e) => e.event_type)).toEqual(['Sign Up', 'Planned']);
    await expect(t.eventTypes.update('Nope', { display_name: 'x' })).rejects.toMatchObject({ status: 409 });
    await expect(t.eventTypes.create({ event_type: 'X', category: 'No Such Category' })).rejects.toMatchObject({
      status: 409,
    });
  });
});

describe('sandbox taxonomy family: properties', () => {
  it('event properties: shared and per event type, update, delete, restore (201)', async () => {
    const t = await client();
    await t.eventTypes.create({ event_type: 'Search' });
    await t.eventProperties.create({
      event_type: 'Search',
      event_property: 'query',
      type: 'string',
      classifications: ['PII'],
      is_required: true,
    });
    expect(await t.eventProperties.get('query', { eventType: 'Search' })).toEqual({
      event_property: 'query',
      event_type: 'Search',
      description: null,
      type: 'string',
      regex: null,
      enum_values: null,
      is_array_type: false,
      is_required: true,
      is_hidden: false,
      classifications: ['PII'],
    });
    expect(await t.eventProperties.list({ eventType: 'Search' })).toHaveLength(1);
    expect(await t.eventProperties.list()).toEqual([]);
    await t.eventProperties.update('query', {
      event_type: 'Search',
      description: 'what was typed',
      regex: '^.{1,100}$',
    });
    expect((await t.eventProperties.get('query', { eventType: 'Search' })).description).toBe('what was typed');
    await expect(t.eventProperties.update('query', { event_type: 'Search', is_hidden: true })).rejects.toMatchObject({
      status: 409,
    });
    const exists = await t.eventProperties
      .create({ event_type: 'Search', event_property: 'query' })
      .catch((e: unknown) => e);
    expect(exists).toBeInstanceOf(ApiError);
    expect(exists).toMatchObject({
      status: 409,
      bodyExcerpt: expect.stringContaining('already exists'),
      serverMessages: ['event property "query" already exists'],
    });
    await t.eventProperties.delete('query', { eventType: 'Search' });
    expect(await t.eventProperties.list({ eventType: 'Search' })).toEqual([]);
    await expect(t.eventProperties.get('query', { eventType: 'Search' })).rejects.toMatchObject({ status: 400 });
    // Exists but deleted: 409 — restore it instead.
    await expect(t.eventProperties.create({ event_type: 'Search', event_property: 'query' })).rejects.toMatchObject({
      status: 409,
    });
    await t.eventProperties.restore('query');
    expect((await t.eventProperties.get('query', { eventType: 'Search' })).description).toBe('what was typed');
    await expect(t.eventProperties.update('nope', { event_type: 'Search', description: 'x' })).rejects.toMatchObject({
      status: 409,
    });
    // The ingested property may be hidden.
    await t.eventProperties.update('page_url', { event_type: 'Page Viewed', is_hidden: true });
    expect((await t.eventProperties.get('page_url', { eventType: 'Page Viewed' })).is_hidden).toBe(true);
  });

  it('user properties: gp: prefix, 404 when missing, success:false on a failed update, delete and restore', async () => {
    const t = await client();
    await t.userProperties.create({ user_property: 'tier', type: 'string', description: 'plan tier' });
    expect(await t.userProperties.get('tier')).toMatchObject({
      user_property: 'gp:tier',
      description: 'plan tier',
      deleted: false,
    });
    expect(await t.userProperties.get('gp:tier')).toMatchObject({ user_property: 'gp:tier' });
    await expect(t.userProperties.create({ user_property: 'tier' })).rejects.toBeInstanceOf(TaxonomyFailureError);
    await t.userProperties.update('tier', { new_user_property_value: 'level', description: 'renamed' });
    await expect(t.userProperties.get('tier')).rejects.toMatchObject({ status: 404 });
    expect(await t.userProperties.get('level')).toMatchObject({ user_property: 'gp:level', description: 'renamed' });
    const hidden = await t.userProperties.update('level', { is_hidden: true }).catch((e: unknown) => e);
    expect(hidden).toBeInstanceOf(TaxonomyFailureError);
    expect(hidden).toMatchObject({ status: 200 });
    await t.userProperties.delete('level');
    await expect(t.userProperties.get('level')).rejects.toMatchObject({ status: 404 });
    expect(await t.userProperties.get('level', { showDeleted: true })).toMatchObject({ deleted: true });
    expect((await t.userProperties.list()).map((u) => u.user_property)).toEqual(['gp:plan']);
    expect((await t.userProperties.list({ showDeleted: true })).map((u) => u.user_property)).toEqual([
      'gp:plan',
      'gp:level',
    ]);
    await t.userProperties.restore('level');
    expect(await t.userProperties.get('level')).toMatchObject({ deleted: false });
    // Hidden ones are left out of the list (the ingested gp:plan may be hidden).
    await t.userProperties.update('plan', { is_hidden: true });
    expect((await t.userProperties.list()).map((u) => u.user_property)).toEqual(['gp:level']);
  });

  it('group properties: grp: prefix, per group type; an overridden property cannot change classifications with group_type', async () => {
    const t = await client();
    await t.groupProperties.create({ group_type: 'company', group_property: 'size', type: 'string' });
    await t.groupProperties.create({ group_type: 'team', group_property: 'size' });
    await expect(t.groupProperties.create({ group_type: 'team', group_property: 'grp:size' })).rejects.toMatchObject({
      status: 409,
    });
    expect((await t.groupProperties.list({ groupType: 'team' })).map((g) => g.group_property)).toEqual(['grp:size']);
    expect(await t.groupProperties.list()).toHaveLength(3);
    expect(await t.groupProperties.get('size', { groupType: 'team' })).toMatchObject({
      group_type: 'team',
      group_property: 'grp:size',
      type: 'any',
    });
    await expect(
      t.groupProperties.update('size', { group_type: 'team', classifications: ['internal'] }),
    ).rejects.toMatchObject({ status: 409 });
    await t.groupProperties.update('size', { classifications: ['internal'] });
    await t.groupProperties.update('size', { group_type: 'team', description: 'people' });
    expect(await t.groupProperties.get('size', { groupType: 'team' })).toMatchObject({
      classifications: ['internal'],
      description: 'people',
    });
    expect(await t.groupProperties.get('size', { groupType: 'company' })).toMatchObject({
      classifications: ['internal'],
      description: null,
    });
    await expect(t.groupProperties.get('nope')).rejects.toMatchObject({ status: 400 });
    await expect(t.groupProperties.update('nope', { description: 'x' })).rejects.toMatchObject({ status: 409 });
  });
});

describe('sandbox taxonomy family: auth, validation and limits', () => {
  it('answers 401 without the project credentials', async () => {
    const t = await client({}, 'wrong-secret');
    await expect(t.categories.list()).rejects.toMatchObject({ status: 401 });
  });

  it('refuses fields a call does not take, and malformed values, with the failure body', async () => {
    rig = await FamilyRig.start();
    const { sandbox } = rig;
    const auth = rig!.basicAuth();
    const post = (path: string, body: string) =>
      fetch(`${sandbox.url}/api/2/taxonomy/${path}`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
    for (const [path, body, message] of [
      ['category', 'category_name=a&colour=red', 'unknown field colour'],
      ['event', 'description=x', 'event_type is required'],
      ['event-property', 'event_property=p&is_required=yes', 'is_required must be true or false'],
      ['event-property', 'event_property=p&regex=(', 'regex is not a valid regular expression'],
    ] as const) {
      const res = await post(path, body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ success: false, errors: [{ message: expect.stringContaining(message) }] });
    }
    const unknown = await fetch(`${sandbox.url}/api/2/taxonomy/nothing`, { headers: { authorization: auth } });
    expect(unknown.status).toBe(404);
  });

  it('429 over the cost per hour (GET 1, writes 2), naming the limit, with Retry-After', async () => {
    const t = await client({ limits: { taxonomyCostPerHour: 5 } });
    await t.categories.create('A'); // 2
    await t.categories.list(); // 3
    await t.categories.create('B'); // 5
    const err = await t.categories.list().catch((e: unknown) => e);
    expect(err).toMatchObject({
      status: 429,
      limit: expect.stringContaining('taxonomy cost per hour'),
      retryAfterMs: expect.any(Number),
    });
    expect((err as { retryAfterMs: number }).retryAfterMs).toBeGreaterThan(0);
    expect(rig!.sandbox.limitRefusals()).toEqual({ 'taxonomy cost per hour': 1 });
  });

  it('429 over the concurrent cost 4: a third write while two are in flight', async () => {
    rig = await FamilyRig.start();
    const { sandbox } = rig;
    const url = new URL(sandbox.url);
    const auth = rig!.basicAuth();
    // Two PUTs whose bodies are held back stay in flight (cost 2 each); the sandbox charges a call before reading it.
    const open = [0, 1].map(() => {
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        method: 'PUT',
        path: '/api/2/taxonomy/category/1',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded', 'content-length': '16' },
      });
      req.on('error', () => {});
      req.flushHeaders();
      return req;
    });
    // Both arrived (charged) before the third is sent: waited for, not guessed with a sleep.
    await vi.waitUntil(() => sandbox.apiArrivals().length === 2, { timeout: 30_000, interval: 5 });
    const third = await fetch(`${sandbox.url}/api/2/taxonomy/category`, { headers: { authorization: auth } });
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('1');
    expect(await third.json()).toEqual({
      success: false,
      errors: [{ message: expect.stringContaining('taxonomy concurrent cost limit exceeded: 4') }],
    });
    const answers = open.map(
      (req) =>
        new Promise<number>((resolve) => req.on('response', (res) => (res.resume(), resolve(res.statusCode ?? 0)))),
    );
    for (const req of open) req.end('category_name=xy');
    expect(await Promise.all(answers)).toEqual([409, 409]);
    // The cost is given back when the calls are answered.
    expect((await fetch(`${sandbox.url}/api/2/taxonomy/category`, { headers: { authorization: auth } })).status).toBe(
      200,
    );
  });

  it('the concurrent cost is held for the whole request: 5 writes at once, with added latency, give 3 429s', async () => {
    rig = await FamilyRig.start({ faults: { latencyMs: 300 } });
    const auth = rig.basicAuth();
    const write = (name: string) =>
      fetch(`${rig!.sandbox.url}/api/2/taxonomy/category`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
        body: `category_name=${name}`,
      });
    const statuses = (await Promise.all(['a', 'b', 'c', 'd', 'e'].map(write))).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(2);
    expect(statuses.filter((s) => s === 429)).toHaveLength(3);
    expect(rig.sandbox.limitRefusals()).toEqual({ 'taxonomy concurrent cost': 3 });
  });

  it('a call whose cost can never fit is a 429 naming the limit (the spec answers limits with 429 only), without Retry-After', async () => {
    rig = await FamilyRig.start({ limits: { taxonomyConcurrentCost: 1 } });
    const res = await fetch(`${rig.sandbox.url}/api/2/taxonomy/category`, {
      method: 'POST',
      headers: { authorization: rig.basicAuth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'category_name=x',
    });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toEqual({
      success: false,
      errors: [
        {
          message: expect.stringContaining(
            'taxonomy concurrent cost limit exceeded: this call costs 2, more than the whole limit of 1 in flight',
          ),
        },
      ],
    });
  });
});
