import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, GroupIdentifyClient, ValidationError } from '../../src/clients/index.js';
import { FamilyRig } from './family-rig.js';

let rig: FamilyRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function client(): Promise<{ rig: FamilyRig; groups: GroupIdentifyClient }> {
  rig = await FamilyRig.start();
  return { rig, groups: new GroupIdentifyClient(rig.transport()) };
}

describe('sandbox group identify family over HTTP (GroupIdentifyClient)', () => {
  it("stores each group's properties; a later identify sets what it names and keeps the rest", async () => {
    const { rig, groups } = await client();
    const answer = await groups.identify([
      { group_type: 'org', group_value: 'acme', group_properties: { plan: 'free', seats: 3 } },
      { group_type: 'org', group_value: 'globex', group_properties: { plan: 'pro' } },
    ]);
    expect(answer).toEqual({ status: 200, body: { code: 200, identified: 2 } });
    await groups.identify([
      { group_type: 'org', group_value: 'acme', group_properties: { plan: 'enterprise', region: 'eu' } },
    ]);
    expect(rig.sandbox.groupProperties('org', 'acme')).toEqual({ plan: 'enterprise', seats: 3, region: 'eu' });
    expect(rig.sandbox.groupProperties('org', 'globex')).toEqual({ plan: 'pro' });
    expect(rig.sandbox.groupProperties('team', 'acme')).toBeUndefined();
  });

  it('takes 1024 identifications with 1024 properties in all', async () => {
    const { rig, groups } = await client();
    const list = Array.from({ length: 1024 }, (_, i) => ({
      group_type: 'org',
      group_value: `o${i}`,
      group_properties: { n: i },
    }));
    expect((await groups.identify(list)).body).toEqual({ code: 200, identified: 1024 });
    expect(rig.sandbox.groupProperties('org', 'o1023')).toEqual({ n: 1023 });
  });

  it('refuses a bad request with 400 (or 413, 415) and changes nothing', async () => {
    const { rig, groups } = await client();
    const key = rig.sandbox.credentials.apiKey;
    const one = (g: unknown) => JSON.stringify([g]);
    const bad: Array<[string | undefined, RegExp]> = [
      [undefined, /identification is required/],
      ['{', /not valid JSON/],
      ['{}', /identification must be an array/],
      ['[]', /1 to 1024 items/],
      [
        one({ group_type: '', group_value: 'v', group_properties: {} }),
        /identification\[0\]\.group_type must be a non-empty string/,
      ],
      [
        one({ group_type: 't', group_value: 'v', group_properties: [] }),
        /identification\[0\]\.group_properties must be an object/,
      ],
      [
        JSON.stringify([
          {
            group_type: 't',
            group_value: 'a',
            group_properties: Object.fromEntries(Array.from({ length: 1025 }, (_, i) => [`p${i}`, i])),
          },
        ]),
        /1025 group properties/,
      ],
    ];
    for (const [text, message] of bad) {
      const res = await rig.post('/groupidentify', {
        api_key: key,
        ...(text !== undefined ? { identification: text } : {}),
      });
      expect(res.status, text).toBe(400);
      expect((res.body as { message: string }).message).toMatch(message);
    }
    const inQuery = await rig.post(
      '/groupidentify',
      { api_key: key, identification: one({ group_type: 't', group_value: 'v', group_properties: {} }) },
      'query',
    );
    expect(inQuery.status).toBe(400);
    expect((inQuery.body as { message: string }).message).toMatch(/form-encoded in the body/);
    const huge = one({ group_type: 't', group_value: 'v', group_properties: { blob: 'x'.repeat(1_100_000) } });
    expect((await rig.post('/groupidentify', { api_key: key, identification: huge })).status).toBe(413);
    const json = await fetch(`${rig.sandbox.url}/groupidentify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    expect(rig.sandbox.groupProperties('t', 'v')).toBeUndefined();
    const before = rig.sandbox.stats().apiRequests;
    await expect(
      groups.identify([{ group_type: 'org', group_value: '', group_properties: {} }]),
    ).rejects.toBeInstanceOf(ValidationError);
    expect(rig.sandbox.stats().apiRequests).toBe(before);
  });

  it('needs the project API key as api_key (401 otherwise)', async () => {
    rig = await FamilyRig.start();
    const wrong = new GroupIdentifyClient(rig.transport({ apiKey: 'not-the-key' }));
    await expect(
      wrong.identify([{ group_type: 'org', group_value: 'acme', group_properties: { a: 1 } }]),
    ).rejects.toBeInstanceOf(AuthError);
    expect((await rig.post('/groupidentify', { identification: '[]' })).status).toBe(401);
    expect(rig.sandbox.stats().unauthorized).toBe(2);
    expect(rig.sandbox.groupProperties('org', 'acme')).toBeUndefined();
  });
});
