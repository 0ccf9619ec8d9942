/**
 * A recording made for the redaction tests: rrweb events (a real document the player rebuilds) holding known
 * personal strings in text, input values and events, attributes, mutations (adds, texts, attributes), a custom
 * event, and in URL-encoded and base64 forms — with the policy that must take every one of them out.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { RedactionPolicySpec } from '../../src/redaction/index.js';
import { v2Text } from '../decoders/fixtures.js';

export const NAME = 'Jane Q. Doe';
export const EMAIL = 'jane.doe@example.com';
export const CARD = '4111 1111 1111 1111';
export const PHONE = '+1 415 555 0132';
export const TOKEN = 'ACCT-7731-XQ';
export const ADDRESS = '221B Baker Street';
export const NICK = 'Jonathan Smithers';
export const USER_ID = 'u-88412';

/** Every string no byte of which may remain (each also checked in its encoded forms). */
export const PERSONAL = [
  NAME,
  EMAIL,
  CARD,
  CARD.replace(/ /g, ''),
  PHONE,
  TOKEN,
  ADDRESS,
  NICK,
  USER_ID,
  'Jonathan S.',
];

export const POLICY: RedactionPolicySpec = {
  mask: ['.profile .user-name', '.profile > .nick', 'input'],
  block: ['.address'],
  dropAttributes: ['title', 'data-user-*'],
  patterns: ['email', 'card', 'phone', { regex: 'ACCT-\\d{4}-[A-Z]{2}' }],
};

export const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/**
 * The base64 text of `s` wherever it sits in a longer value: for each of the three byte alignments, the quads that
 * hold bytes of `s` only.
 */
export function base64Forms(s: string): string[] {
  const out: string[] = [];
  for (let k = 0; k < 3; k++) {
    const enc = b64('x'.repeat(k) + s);
    const first = k === 0 ? 0 : 4;
    const last = Math.floor((k + Buffer.byteLength(s)) / 3) * 4;
    if (last - first >= 8) out.push(enc.slice(first, last));
  }
  return out;
}

/** The forms of `s` a recording or an output can hold it in: plain, URL-encoded, base64 at any alignment. */
export function encodedForms(s: string): string[] {
  return [s, encodeURIComponent(s), ...base64Forms(s)];
}

/** Which personal strings (in any form) `text` still holds, also inside every base64 run of it, decoded. */
export function leaks(text: string): string[] {
  const found = new Set<string>();
  for (const s of PERSONAL) for (const form of encodedForms(s)) if (text.includes(form)) found.add(`${s} as ${form}`);
  for (const run of text.match(/[A-Za-z0-9+/]{8,}={0,2}/g) ?? []) {
    for (let a = 0; a < 4; a++) {
      const decoded = Buffer.from(run.slice(a), 'base64').toString('latin1');
      for (const s of PERSONAL) if (decoded.includes(s)) found.add(`${s} in base64 ${run.slice(0, 24)}…`);
    }
  }
  return [...found];
}

let nextId = 1;
type Node = Record<string, unknown>;
const el = (tagName: string, attributes: Record<string, string>, childNodes: Node[] = []): Node => ({
  type: 2,
  tagName,
  attributes,
  childNodes,
  id: nextId++,
});
const text = (textContent: string, extra: Record<string, unknown> = {}): Node => ({
  type: 3,
  textContent,
  id: nextId++,
  ...extra,
});

export interface Recording {
  events: Record<string, unknown>[];
  /** Ids the tests look at. */
  ids: {
    profile: number;
    nameText: number;
    status: number;
    statusText: number;
    address: number;
    addressText: number;
    card: number;
  };
}

export function makeRecording(t0 = Date.UTC(2026, 10, 20, 9, 0, 0)): Recording {
  nextId = 1;
  const doctype: Node = { type: 1, name: 'html', publicId: '', systemId: '', id: nextId++ };
  const nameText = text(NAME);
  const statusText = text('ready');
  const status = el('p', { id: 'status' }, [statusText]);
  const addressText = text(ADDRESS);
  const address = el('div', { class: 'address', style: 'width: 300px; height: 80px' }, [el('p', {}, [addressText])]);
  const card = el('input', { id: 'card', type: 'text', value: CARD });
  const profile = el('div', { class: 'profile' }, [
    el('span', { class: 'user-name' }, [nameText]),
    el('p', {}, [text(`Write to ${EMAIL} any time`)]),
  ]);
  const body = el('body', {}, [
    el('h1', {}, [text('Account')]),
    profile,
    el('a', { href: `mailto:${EMAIL}` }, [text('mail')]),
    el('a', { href: `https://shop.example/u?email=${encodeURIComponent(EMAIL)}&x=1` }, [text('link')]),
    el('a', { href: `data:text/plain;base64,${b64(`contact: ${EMAIL}`)}` }, [text('card')]),
    el('div', { 'data-phone': PHONE, title: `Call ${NAME}`, 'data-user-id': USER_ID }, [text('phone')]),
    el('form', {}, [card]),
    address,
    status,
  ]);
  const head = el('head', {}, [
    el('style', {}, [text('.user-name { color: #333 } .address { background: #eee }', { isStyle: true })]),
  ]);
  const html = el('html', {}, [head, body]);
  const doc: Node = { type: 0, childNodes: [doctype, html], id: nextId++ };
  const ids = {
    profile: profile.id as number,
    nameText: nameText.id as number,
    status: status.id as number,
    statusText: statusText.id as number,
    address: address.id as number,
    addressText: addressText.id as number,
    card: card.id as number,
  };
  const nick = el('span', { class: 'nick', title: NAME });
  let t = t0;
  const ev = (type: number, data: unknown): Record<string, unknown> => ({ type, data, timestamp: (t += 100) });
  const inc = (data: Record<string, unknown>): Record<string, unknown> => ev(3, data);
  const events = [
    ev(4, { href: `https://shop.example/account?email=${encodeURIComponent(EMAIL)}`, width: 1024, height: 768 }),
    ev(2, { node: doc, initialOffset: { left: 0, top: 0 } }),
    ...CARD.split('').map((_, i) => inc({ source: 5, text: CARD.slice(0, i + 1), isChecked: false, id: ids.card })),
    // As rrweb records an added subtree: each node its own add, a parent before its children.
    inc({
      source: 0,
      texts: [],
      attributes: [],
      removes: [],
      adds: [
        { parentId: ids.profile, nextId: null, node: nick },
        { parentId: nick.id, nextId: null, node: text(NICK) },
      ],
    }),
    inc({ source: 0, texts: [{ id: ids.nameText, value: 'Jonathan S.' }], attributes: [], removes: [], adds: [] }),
    inc({
      source: 0,
      texts: [{ id: ids.statusText, value: `Token ${TOKEN} issued` }],
      attributes: [{ id: ids.status, attributes: { 'aria-label': `Call ${PHONE}`, 'data-user-id': USER_ID } }],
      removes: [],
      adds: [],
    }),
    inc({
      source: 0,
      texts: [{ id: ids.addressText, value: `Flat 4, ${ADDRESS}` }],
      attributes: [],
      removes: [],
      adds: [{ parentId: ids.address, nextId: null, node: text(`Also ${ADDRESS}`) }],
    }),
    inc({ source: 2, type: 2, id: ids.card, x: 20, y: 300 }),
    ev(5, { tag: 'checkout', payload: { card: CARD, [EMAIL]: true, note: `call ${PHONE}` } }),
  ];
  return { events, ids };
}

/**
 * A samples folder (the sandbox's layout: index.json, expected/, files/<name>/v2|v3/) serving `events` as one replay
 * of two version 3 files (or one version 2 file, rrweb-packed).
 */
export function recordingSamplesDir(
  name: string,
  events: readonly Record<string, unknown>[],
): { dir: string; replayId: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'redaction-samples-'));
  const startMs = events[0]!.timestamp as number;
  const replayId = `0000000r-aaaa-4bbb-8ccc-000000000001/${startMs}`;
  mkdirSync(join(dir, 'expected'), { recursive: true });
  writeFileSync(join(dir, 'expected', `${name}.json`), JSON.stringify(events));
  mkdirSync(join(dir, 'files', name, 'v3'), { recursive: true });
  mkdirSync(join(dir, 'files', name, 'v2'), { recursive: true });
  const v2 = `files/${name}/v2/${startMs}-0000.json.gz`;
  writeFileSync(join(dir, v2), gzipSync(v2Text([...events], () => 'json-packed')));
  const half = Math.ceil(events.length / 2);
  const files = [events.slice(0, half), events.slice(half)].map((chunk, k) => {
    const rel = `files/${name}/v3/${chunk[0]!.timestamp as number}-${String(k).padStart(4, '0')}.json.gz`;
    writeFileSync(join(dir, rel), gzipSync(JSON.stringify(chunk)));
    return rel;
  });
  const [deviceId, sessionId] = replayId.split('/');
  const index = {
    replays: [
      {
        name,
        replay_id: replayId,
        device_id: deviceId,
        session_id: sessionId,
        platform_id: 4242,
        start_time: new Date(startMs).toISOString(),
        end_time: new Date(events[events.length - 1]!.timestamp as number).toISOString(),
        retention_in_days: 90,
        event_count: events.length,
        expected: `expected/${name}.json`,
        files: { '2': [v2], '3': files },
      },
    ],
  };
  writeFileSync(join(dir, 'index.json'), JSON.stringify(index, null, 2));
  return { dir, replayId, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
