/**
 * The users the sandbox's user activity and user search know: USER_COUNT users, `user-01` … `user-20`, platform ids
 * 100000001 … 100000020, device ids `device-01` … `device-20`, each with a deterministic record (spec document 3,
 * "User record").
 */
import { Seeded } from './dashboard-data.js';

const USER_COUNT = 20;
const FIRST_PLATFORM_ID = 100_000_001;

export interface DirectoryUser {
  user_id: string;
  platform_id: number;
  device_id: string;
}

const USERS: readonly DirectoryUser[] = Array.from({ length: USER_COUNT }, (_, i) => {
  const n = String(i + 1).padStart(2, '0');
  return { user_id: `user-${n}`, platform_id: FIRST_PLATFORM_ID + i, device_id: `device-${n}` };
});

/** User search: an exact platform id, device id or user id, or a user id prefix. */
export function searchUsers(text: string): { matches: { user_id: string; platform_id: number }[]; type: string } {
  const exact = USERS.filter((u) => String(u.platform_id) === text || u.device_id === text || u.user_id === text);
  const found = exact.length > 0 ? exact : USERS.filter((u) => u.user_id.startsWith(text));
  return found.length === 0
    ? { matches: [], type: 'nomatch' }
    : {
        matches: found.map((u) => ({ user_id: u.user_id, platform_id: u.platform_id })),
        type: 'match_user_or_device_id',
      };
}

export function userByPlatformId(id: number): DirectoryUser | undefined {
  return USERS.find((u) => u.platform_id === id);
}

/** `userData` and `events` of one user. */
export function userActivity(u: DirectoryUser): object {
  const r = new Seeded(`useractivity ${u.user_id}`);
  const numEvents = r.int(3, 12);
  const firstUsed = Date.UTC(2026, 0, 1) + r.int(0, 200) * 86_400_000;
  const events = Array.from({ length: numEvents }, (_, i) => ({
    event_type: ['Page Viewed', 'Sign Up', 'Button Clicked'][i % 3],
    event_time: new Date(firstUsed + i * 3_600_000).toISOString().replace('T', ' ').slice(0, 23),
    user_id: u.user_id,
    device_id: u.device_id,
    platform_id: u.platform_id,
    event_properties: {},
  }));
  return {
    userData: {
      user_id: u.user_id,
      canonical_platform_id: u.platform_id,
      merged_platform_ids: [],
      num_events: numEvents,
      num_sessions: r.int(1, numEvents),
      usage_time: r.int(60_000, 3_600_000),
      first_used: new Date(firstUsed).toISOString().slice(0, 10),
      last_used: new Date(firstUsed + (numEvents - 1) * 3_600_000).toISOString().slice(0, 10),
      purchases: 0,
      revenue: 0,
      platform: 'Web',
      os: 'Chrome 120',
      version: null,
      device: 'Mac',
      device_type: 'Desktop',
      carrier: null,
      country: 'Germany',
      region: 'Berlin',
      city: 'Berlin',
      dma: null,
      language: 'German',
      start_version: null,
      device_ids: [u.device_id],
      last_location: { lat: 52.52, lng: 13.405 },
      properties: { plan: r.next() < 0.5 ? 'free' : 'pro' },
    },
    events,
  };
}
