import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { type ApiError, AuthError, UserMappingClient, ValidationError } from '../../src/clients/index.js';
import { FamilyRig } from './family-rig.js';

let rig: FamilyRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function client(): Promise<{ rig: FamilyRig; mapping: UserMappingClient }> {
  rig = await FamilyRig.start();
  return { rig, mapping: new UserMappingClient(rig.transport()) };
}

const entry = (user_id: string) => ({ platform_id: expect.any(Number), user_id });

describe('sandbox user mapping family over HTTP (UserMappingClient)', () => {
  it('map, get mappings, unmap: the state follows, query- or form-encoded', async () => {
    const { mapping } = await client();
    const answer = await mapping.map([
      { user_id: 'phone-user', global_user_id: 'alice' },
      { user_id: 'web-user', global_user_id: 'alice' },
    ]);
    expect(answer).toEqual([{ status: 200, body: { code: 200, mapped: 2, unmapped: 0 } }]);

    const got = await mapping.getMappings(['alice', 'phone-user', 'stranger']);
    expect(got).toEqual({
      alice: { mapped_from: [entry('phone-user'), entry('web-user')], mapped_to: [] },
      'phone-user': { mapped_from: [], mapped_to: [entry('alice')] },
      stranger: { mapped_from: [], mapped_to: [] },
    });
    // A user's platform id is derived from its id (docs/SANDBOX.md): the same wherever it appears, in every sandbox.
    const derived = (id: string) => 1e11 + parseInt(createHash('sha256').update(id).digest('hex').slice(0, 8), 16);
    expect(got['phone-user']!.mapped_to[0]!.platform_id).toBe(derived('alice'));
    expect(got.alice!.mapped_from.map((m) => m.platform_id)).toEqual([derived('phone-user'), derived('web-user')]);

    expect((await mapping.unmap(['phone-user'], { encoding: 'form' }))[0]!.body).toEqual({
      code: 200,
      mapped: 0,
      unmapped: 1,
    });
    expect((await mapping.getMappings(['alice'])).alice!.mapped_from).toEqual([entry('web-user')]);
    // Mapped again elsewhere: the newer mapping replaces the older one.
    await mapping.map([{ user_id: 'web-user', global_user_id: 'bob' }], { encoding: 'form' });
    expect(await mapping.getMappings(['alice', 'web-user'])).toEqual({
      alice: { mapped_from: [], mapped_to: [] },
      'web-user': { mapped_from: [], mapped_to: [entry('bob')] },
    });
  });

  it('takes a full batch of 2000 form-encoded', async () => {
    const { mapping } = await client();
    const batch = Array.from({ length: 2000 }, (_, i) => ({ user_id: `u${i}`, global_user_id: 'g' }));
    expect((await mapping.map(batch, { encoding: 'form' }))[0]!.body).toMatchObject({ mapped: 2000 });
    expect((await mapping.getMappings(['g'])).g!.mapped_from).toHaveLength(2000);
  });

  it('refuses a bad batch with 400 and changes nothing', async () => {
    const { rig, mapping } = await client();
    const key = rig.sandbox.credentials.apiKey;
    const bad: Array<[string | undefined, RegExp]> = [
      [undefined, /mapping is required/],
      ['not json', /mapping is not valid JSON/],
      ['[]', /mapping must hold 1 to 2000 items/],
      [
        JSON.stringify(Array.from({ length: 2001 }, (_, i) => ({ user_id: `u${i}`, global_user_id: 'g' }))),
        /1 to 2000 items \(got 2001\)/,
      ],
      [
        JSON.stringify([
          { user_id: 'ok', global_user_id: 'g' },
          { user_id: '', global_user_id: 'g' },
        ]),
        /mapping\[1\]\.user_id must be a non-empty string/,
      ],
      [JSON.stringify([{ user_id: 'a', global_user_id: 'a' }]), /cannot be mapped to itself/],
      [JSON.stringify([{ user_id: 'a', unmap: false }]), /unmap must be true/],
      [
        JSON.stringify([{ user_id: 'a', global_user_id: 'g', extra: 1 }]),
        /mapping\[0\]\.extra is not a field accepted here/,
      ],
    ];
    for (const [text, message] of bad) {
      const res = await rig.post('/usermap', { api_key: key, ...(text !== undefined ? { mapping: text } : {}) });
      expect(res.status, text).toBe(400);
      expect((res.body as { message: string }).message).toMatch(message);
    }
    expect((await mapping.getMappings(['g', 'ok'])).ok).toEqual({ mapped_from: [], mapped_to: [] });
    const big = JSON.stringify([{ user_id: 'u', global_user_id: 'x'.repeat(1_100_000) }]);
    expect((await rig.post('/usermap', { api_key: key, mapping: big })).status).toBe(413);
    const basic = `Basic ${Buffer.from(`${key}:${rig.sandbox.credentials.secretKey}`).toString('base64')}`;
    expect((await rig.send('GET', '/api/2/usermap', { authorization: basic })).status).toBe(400);
    // The client refuses what it can before sending: nothing reaches the sandbox.
    const before = rig.sandbox.stats().apiRequests;
    await expect(mapping.map([])).rejects.toBeInstanceOf(ValidationError);
    await expect(mapping.getMappings([''])).rejects.toBeInstanceOf(ValidationError);
    expect(rig.sandbox.stats().apiRequests).toBe(before);
  });

  it('map and unmap need the api_key parameter (401); get mappings needs HTTP Basic (401)', async () => {
    rig = await FamilyRig.start();
    const wrongKey = new UserMappingClient(rig.transport({ ...rig.sandbox.credentials, apiKey: 'not-the-key' }));
    for (const call of [
      () => wrongKey.map([{ user_id: 'u', global_user_id: 'g' }]),
      () => wrongKey.unmap(['u'], { encoding: 'form' }),
      () => wrongKey.getMappings(['u']),
    ]) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AuthError);
      expect((err as ApiError).status).toBe(401);
    }
    expect((await rig.post('/usermap', { mapping: '[{"user_id":"u","global_user_id":"g"}]' })).status).toBe(401);
    const wrongSecret = new UserMappingClient(
      rig.transport({ ...rig.sandbox.credentials, secretKey: 'not-the-secret' }),
    );
    await expect(wrongSecret.getMappings(['u'])).rejects.toMatchObject({ status: 401 });
    expect(rig.sandbox.stats().unauthorized).toBe(5);
    const right = new UserMappingClient(rig.transport());
    expect((await right.getMappings(['g'])).g).toEqual({ mapped_from: [], mapped_to: [] });
  });

  it('logs get mappings under the dashboard family and refuses other methods (405)', async () => {
    const { rig, mapping } = await client();
    await mapping.getMappings(['u']);
    expect(rig.sandbox.apiArrivals().map((a) => [a.family, a.path])).toEqual([['dashboard', '/api/2/usermap']]);
    const res = await fetch(`${rig.sandbox.url}/usermap?api_key=${rig.sandbox.credentials.apiKey}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });
});
