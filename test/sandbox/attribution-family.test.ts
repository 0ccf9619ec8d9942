import { afterEach, describe, expect, it } from 'vitest';
import { AttributionClient, AuthError, ValidationError } from '../../src/clients/index.js';
import { FamilyRig } from './family-rig.js';

let rig: FamilyRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const INSTALL = {
  event_type: '[Adjust] install',
  idfa: 'AEBE52E7-03EE-455A-B3C4-E57283966239',
  platform: 'ios',
  user_properties: { campaign: 'winter' },
};

describe('sandbox attribution family over HTTP (AttributionClient)', () => {
  it('holds each event (no matching user yet), form-encoded or in the query, and drops it after 72 hours', async () => {
    let now = Date.parse('2026-11-24T12:00:00Z');
    rig = await FamilyRig.start({ now: () => now });
    const attribution = new AttributionClient(rig.transport());
    const answer = await attribution.send(INSTALL);
    expect(answer).toEqual({ status: 200, body: { code: 200, status: 'held' } });
    now += 3600_000;
    await attribution.send(
      { event_type: 'install', adid: 'cdda802e-fb9c-47ad-9866-0794d394c912', platform: 'android' },
      { encoding: 'query' },
    );
    expect(rig.sandbox.heldAttributions().map((h) => [h.event.event_type, h.receivedAt])).toEqual([
      ['[Adjust] install', Date.parse('2026-11-24T12:00:00Z')],
      ['install', Date.parse('2026-11-24T13:00:00Z')],
    ]);
    expect(rig.sandbox.heldAttributions()[0]!.event).toEqual(INSTALL);
    now = Date.parse('2026-11-27T12:00:00Z'); // exactly 72 hours after the first: still held
    expect(rig.sandbox.heldAttributions()).toHaveLength(2);
    now += 1;
    expect(rig.sandbox.heldAttributions().map((h) => h.event.event_type)).toEqual(['install']);
  });

  it('refuses a bad event with 400 and holds nothing', async () => {
    rig = await FamilyRig.start();
    const key = rig.sandbox.credentials.apiKey;
    const bad: Array<[string | undefined, RegExp]> = [
      [undefined, /event is required/],
      ['nope', /event is not valid JSON/],
      ['[]', /event must be an object/],
      [JSON.stringify({ idfa: 'x' }), /event\.event_type must be a non-empty string/],
      [JSON.stringify({ event_type: 'install' }), /needs one of idfa, idfv, adid, android_app_set_id/],
      [JSON.stringify({ event_type: 'install', idfv: 7 }), /event\.idfv must be a string/],
      [
        JSON.stringify({ event_type: 'install', adid: 'a', user_properties: 'x' }),
        /event\.user_properties must be an object/,
      ],
    ];
    for (const [text, message] of bad) {
      for (const where of ['form', 'query'] as const) {
        const res = await rig.post(
          '/attribution',
          { api_key: key, ...(text !== undefined ? { event: text } : {}) },
          where,
        );
        expect(res.status, `${where} ${text}`).toBe(400);
        expect((res.body as { message: string }).message).toMatch(message);
      }
    }
    const twice = await fetch(
      `${rig.sandbox.url}/attribution?api_key=${key}&event=${encodeURIComponent(JSON.stringify(INSTALL))}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ event: JSON.stringify(INSTALL) }).toString(),
      },
    );
    expect(twice.status).toBe(400);
    expect(rig.sandbox.heldAttributions()).toEqual([]);
    await expect(new AttributionClient(rig.transport()).send({ event_type: 'install' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(rig.sandbox.stats().badRequests).toBe(bad.length * 2 + 1);
  });

  it('needs the project API key as api_key (401 otherwise)', async () => {
    rig = await FamilyRig.start();
    const wrong = new AttributionClient(rig.transport({ apiKey: 'not-the-key' }));
    await expect(wrong.send(INSTALL)).rejects.toBeInstanceOf(AuthError);
    await expect(wrong.send(INSTALL, { encoding: 'query' })).rejects.toMatchObject({ status: 401 });
    expect(rig.sandbox.heldAttributions()).toEqual([]);
    expect(rig.sandbox.stats().unauthorized).toBe(2);
  });
});
