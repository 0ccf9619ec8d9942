/**
 * TaxonomyClient on the scripted loopback server (helpers.ts `rig`): the exact method, path encoding, query and form
 * body of every operation, and what it refuses before sending. What it makes of the answers (data unwrapped,
 * `success: false` as TaxonomyFailureError, 4xx failure bodies) is tested against the sandbox:
 * test/sandbox/taxonomy-family.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TaxonomyClient } from '../../src/clients/index.js';
import { BASIC, expectRefused, form, json, requestOf, rig, type Rig } from './helpers.js';

let r: Rig | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

const T = '/api/2/taxonomy';

/** GETs answer `{success, data}` (array for collections, object for one item); writes `{success: true}`. */
async function taxonomyRig(): Promise<Rig> {
  return rig((req, res) => {
    const u = new URL(req.url!, 'http://x');
    if (req.method === 'GET') {
      const collection = /^\/api\/2\/taxonomy\/[a-z-]+$/.test(u.pathname) && !u.searchParams.has('event_property');
      return json(res, 200, { success: true, data: collection ? [{ id: 1, name: 'n' }] : { id: 1, name: 'n' } });
    }
    json(res, u.pathname.endsWith('/restore') && u.pathname.includes('event-property') ? 201 : 200, { success: true });
  });
}

describe('TaxonomyClient', () => {
  it('sends every operation with method, path, query, form body and Basic auth', async () => {
    r = await taxonomyRig();
    const t = new TaxonomyClient(r.transport);
    const calls: [() => Promise<unknown>, string, string, Record<string, string> | null][] = [
      [() => t.categories.create('Sign up'), 'POST', `${T}/category`, { category_name: 'Sign up' }],
      [() => t.categories.list(), 'GET', `${T}/category`, null],
      [() => t.categories.get('A/B & C'), 'GET', `${T}/category/A%2FB%20%26%20C`, null],
      [() => t.categories.rename(12, 'New'), 'PUT', `${T}/category/12`, { category_name: 'New' }],
      [() => t.categories.delete(12), 'DELETE', `${T}/category/12`, null],
      [
        () =>
          t.eventTypes.create({
            event_type: 'Play Song',
            category: 'Media',
            description: 'd',
            is_hidden_from_timeline: true,
          }),
        'POST',
        `${T}/event`,
        { event_type: 'Play Song', category: 'Media', description: 'd', is_hidden_from_timeline: 'true' },
      ],
      [() => t.eventTypes.list(), 'GET', `${T}/event`, null],
      [() => t.eventTypes.list({ showDeleted: true }), 'GET', `${T}/event?showDeleted=true`, null],
      [() => t.eventTypes.get('Play Song'), 'GET', `${T}/event/Play%20Song`, null],
      [
        () => t.eventTypes.update('Play Song', { display_name: 'Play', is_hidden_from_dropdowns: false }),
        'PUT',
        `${T}/event/Play%20Song`,
        { display_name: 'Play', is_hidden_from_dropdowns: 'false' },
      ],
      [() => t.eventTypes.delete('Play Song'), 'DELETE', `${T}/event/Play%20Song`, null],
      [() => t.eventTypes.restore('Play Song'), 'POST', `${T}/event/Play%20Song/restore`, null],
      [
        () =>
          t.eventProperties.create({
            event_type: 'Play',
            event_property: 'genre',
            type: 'string',
            is_required: false,
            classifications: ['PII', 'SENSITIVE'],
          }),
        'POST',
        `${T}/event-property`,
        {
          event_type: 'Play',
          event_property: 'genre',
          type: 'string',
          is_required: 'false',
          classifications: 'PII,SENSITIVE',
        },
      ],
      [() => t.eventProperties.list(), 'GET', `${T}/event-property`, null],
      [() => t.eventProperties.list({ eventType: 'Play' }), 'GET', `${T}/event-property`, { event_type: 'Play' }],
      [
        () => t.eventProperties.get('genre name', { eventType: 'Play' }),
        'GET',
        `${T}/event-property?event_property=genre%20name`,
        { event_type: 'Play' },
      ],
      [
        () => t.eventProperties.update('genre', { event_type: 'Play', description: 'new' }),
        'PUT',
        `${T}/event-property/genre`,
        { event_type: 'Play', description: 'new' },
      ],
      [() => t.eventProperties.delete('genre'), 'DELETE', `${T}/event-property/genre`, null],
      [
        () => t.eventProperties.delete('genre', { eventType: 'Play' }),
        'DELETE',
        `${T}/event-property/genre`,
        { event_type: 'Play' },
      ],
      [() => t.eventProperties.restore('genre'), 'POST', `${T}/event-property/genre/restore`, null],
      [
        () => t.userProperties.create({ user_property: 'gp:plan', description: 'plan' }),
        'POST',
        `${T}/user-property`,
        { user_property: 'gp:plan', description: 'plan' },
      ],
      [() => t.userProperties.list({ showDeleted: true }), 'GET', `${T}/user-property?showDeleted=true`, null],
      [() => t.userProperties.get('gp:plan'), 'GET', `${T}/user-property/gp%3Aplan`, null],
      [
        () => t.userProperties.get('gp:plan', { showDeleted: true }),
        'GET',
        `${T}/user-property/gp%3Aplan?showDeleted=true`,
        null,
      ],
      [
        () => t.userProperties.update('gp:plan', { new_user_property_value: 'gp:tier', is_hidden: true }),
        'PUT',
        `${T}/user-property/gp%3Aplan`,
        { new_user_property_value: 'gp:tier', is_hidden: 'true' },
      ],
      [() => t.userProperties.delete('gp:plan'), 'DELETE', `${T}/user-property/gp%3Aplan`, null],
      [() => t.userProperties.restore('gp:plan'), 'POST', `${T}/user-property/gp%3Aplan/restore`, null],
      [
        () => t.groupProperties.create({ group_type: 'org', group_property: 'grp:size' }),
        'POST',
        `${T}/group-property`,
        { group_type: 'org', group_property: 'grp:size' },
      ],
      [() => t.groupProperties.list({ groupType: 'org' }), 'GET', `${T}/group-property?group_type=org`, null],
      [
        () => t.groupProperties.get('grp:size', { groupType: 'org' }),
        'GET',
        `${T}/group-property/grp%3Asize?group_type=org`,
        null,
      ],
      [
        () => t.groupProperties.update('grp:size', { description: 'shared' }),
        'PUT',
        `${T}/group-property/grp%3Asize`,
        { description: 'shared' },
      ],
    ];
    for (const [call, method, url, body] of calls) {
      const seen = await requestOf(r, call);
      expect(`${seen.method} ${seen.url}`).toBe(`${method} ${url}`);
      expect(seen.headers.authorization).toBe(BASIC);
      if (body === null) expect(seen.body).toBe('');
      else {
        expect(seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
        expect(form(seen)).toEqual(body);
      }
      expect(form(seen).api_key).toBeUndefined();
    }
  });

  it('refuses invalid requests before sending anything', async () => {
    r = await taxonomyRig();
    const t = new TaxonomyClient(r.transport);
    const bad: [() => Promise<unknown>, string][] = [
      [() => t.categories.create(''), 'category_name'],
      // A lone surrogate has no UTF-8 form; a form body would silently send U+FFFD instead.
      [() => t.categories.create('Sign\ud800up'), 'category_name'],
      [() => t.categories.rename(1.5, 'x'), 'category_id'],
      [
        () => t.eventTypes.create({ event_type: 'e', is_hidden_from_pathfinder: 'yes' as never }),
        'is_hidden_from_pathfinder',
      ],
      [() => t.eventTypes.create({ event_type: 'e', color: 'red' } as never), 'body.color'],
      [() => t.eventTypes.get(''), 'event_type'],
      [() => t.eventProperties.create({ event_type: 'e' } as never), 'event_property'],
      [() => t.eventProperties.create({ event_property: 'p', event_type: '' }), 'event_type'],
      [() => t.eventProperties.update('p', { event_type: 'e' }), 'body'],
      [
        () => t.eventProperties.create({ event_type: 'e', event_property: 'p', classifications: ['PII', 3] } as never),
        'classifications[1]',
      ],
      [() => t.userProperties.update('gp:x', {}), 'body'],
      [() => t.groupProperties.create({ group_property: 'grp:x' } as never), 'group_type'],
      [() => t.groupProperties.list({ groupType: '' }), 'group_type'],
    ];
    await expectRefused(r, bad);
  });
});
