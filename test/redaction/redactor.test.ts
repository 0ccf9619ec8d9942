import { describe, expect, test } from 'vitest';
import {
  compileRedactionPolicy,
  PatternSet,
  redactBatches,
  RedactionError,
  RedactionPolicyError,
  ReplayRedactor,
  type RedactionPolicySpec,
} from '../../src/redaction/index.js';
import { ADDRESS, b64, CARD, EMAIL, leaks, makeRecording, NAME, NICK, PHONE, POLICY, TOKEN } from './recording.js';

type Ev = Record<string, any>;

/** Runs events through one redactor; returns what comes out, parsed, and the raw outputs. */
function redactAll(
  events: readonly unknown[],
  spec: RedactionPolicySpec = POLICY,
): { out: Ev[]; buffers: (Buffer | undefined)[]; inputs: Buffer[] } {
  const redactor = new ReplayRedactor(compileRedactionPolicy(spec));
  const inputs = events.map((e) => Buffer.from(JSON.stringify(e)));
  const buffers = inputs.map((b) => redactor.redact(b));
  return {
    out: buffers.filter((b): b is Buffer => b !== undefined).map((b) => JSON.parse(b.toString('utf8')) as Ev),
    buffers,
    inputs,
  };
}

function find(node: Ev, pred: (n: Ev) => boolean): Ev | undefined {
  if (pred(node)) return node;
  for (const c of (node.childNodes as Ev[] | undefined) ?? []) {
    const hit = find(c, pred);
    if (hit) return hit;
  }
  return undefined;
}

describe('redacting a recording with a policy', () => {
  const { events, ids } = makeRecording();
  const { out } = redactAll(events);
  const text = JSON.stringify(out);

  test('no personal string remains, in any form the recording held it', () => {
    expect(JSON.stringify(events)).toContain(EMAIL);
    expect(leaks(JSON.stringify(events)).length).toBeGreaterThan(10);
    expect(leaks(text)).toEqual([]);
  });

  test('selected text is masked character for character; style text is left alone', () => {
    const doc = out[1]!.data.node as Ev;
    expect(find(doc, (n) => n.id === ids.nameText)!.textContent).toBe('**** ** ***');
    const style = find(doc, (n) => n.isStyle === true)!;
    expect(style.textContent).toContain('.user-name { color: #333 }');
    // Text not selected keeps its words; the email in it is masked to the same length.
    const para = find(doc, (n) => typeof n.textContent === 'string' && n.textContent.startsWith('Write to'))!;
    expect(para.textContent).toBe(`Write to ${'*'.repeat(EMAIL.length)} any time`);
  });

  test('input values and input events of selected inputs are masked; the block keeps its size and drops its content', () => {
    const doc = out[1]!.data.node as Ev;
    expect(find(doc, (n) => n.id === ids.card)!.attributes.value).toBe('**** **** **** ****');
    const inputs = out.filter((e) => e.type === 3 && e.data.source === 5);
    expect(inputs).toHaveLength(CARD.length);
    expect(inputs.at(-1)!.data.text).toBe('**** **** **** ****');
    const block = find(doc, (n) => n.id === ids.address)!;
    expect(block.attributes).toEqual({ class: 'address rr-block', style: 'width: 300px; height: 80px' });
    expect(block.childNodes).toEqual([]);
    expect(find(doc, (n) => n.id === ids.addressText)).toBeUndefined();
  });

  test('mutations: adds under a selected parent are masked, texts follow their node, attributes are dropped or masked', () => {
    const mutations = out.filter((e) => e.type === 3 && e.data.source === 0);
    expect(mutations[0]!.data.adds[1].node.textContent).toBe(NICK.replace(/\S/g, '*'));
    expect(mutations[1]!.data.texts).toEqual([{ id: ids.nameText, value: '******** **' }]);
    expect(mutations[2]!.data.texts[0].value).toBe(`Token ${'*'.repeat(TOKEN.length)} issued`);
    expect(mutations[2]!.data.attributes).toEqual([
      { id: ids.status, attributes: { 'aria-label': 'Call ** *** *** ****' } },
    ]);
    // What happens inside the block is gone: its text change and the node added under it.
    expect(mutations[3]!.data.texts).toEqual([]);
    expect(mutations[3]!.data.adds).toEqual([]);
  });

  test('a custom payload is masked in its keys and values; events nothing matched keep their bytes', () => {
    const custom = out.find((e) => e.type === 5)!;
    expect(custom.data.payload).toEqual({
      card: '**** **** **** ****',
      ['*'.repeat(EMAIL.length)]: true,
      note: 'call ** *** *** ****',
    });
    const click = { type: 3, data: { source: 2, type: 2, id: 99, x: 1, y: 2 }, timestamp: 5 };
    const r = redactAll([click]);
    expect(r.buffers[0]).toBe(r.inputs[0]);
  });

  test('an event about a node inside a block is dropped; a new full snapshot starts the node table again', () => {
    const inside = { type: 3, data: { source: 5, text: ADDRESS, isChecked: false, id: ids.addressText }, timestamp: 1 };
    const r = redactAll([...events, inside]);
    expect(r.buffers.at(-1)).toBeUndefined();
    // After a new snapshot without the block, the same id is an ordinary node again.
    const snapshot = {
      type: 2,
      data: {
        node: {
          type: 0,
          id: 1,
          childNodes: [
            {
              type: 2,
              tagName: 'p',
              attributes: {},
              childNodes: [{ type: 3, textContent: 'hi', id: ids.addressText }],
              id: 2,
            },
          ],
        },
      },
      timestamp: 2,
    };
    const again = redactAll([...events, snapshot, { ...inside, data: { ...inside.data, text: 'plain' } }]);
    expect(again.out.at(-1)!.data.text).toBe('plain');
  });
});

describe('selectors', () => {
  const doc = (body: Ev[]): Ev => ({
    type: 2,
    data: {
      node: { type: 0, id: 1, childNodes: [{ type: 2, tagName: 'body', attributes: {}, id: 2, childNodes: body }] },
    },
    timestamp: 1,
  });
  let id = 10;
  const el = (tagName: string, attributes: Record<string, string>, childNodes: Ev[] = []): Ev => ({
    type: 2,
    tagName,
    attributes,
    childNodes,
    id: id++,
  });
  const t = (s: string): Ev => ({ type: 3, textContent: s, id: id++ });
  const texts = (e: Ev): string[] => {
    const all: string[] = [];
    const walk = (n: Ev): void => {
      if (typeof n.textContent === 'string') all.push(n.textContent);
      for (const c of (n.childNodes as Ev[] | undefined) ?? []) walk(c);
    };
    walk(e.data.node as Ev);
    return all;
  };

  test('child and descendant combinators, attribute operators, lists, case-insensitive values', () => {
    const tree = doc([
      el('ul', { id: 'a' }, [el('li', {}, [t('direct')]), el('div', {}, [el('li', {}, [t('deep')])])]),
      el('p', { 'data-kind': 'Secret-note' }, [t('attr')]),
      el('p', { lang: 'en-GB' }, [t('hyphen')]),
      el('p', { class: 'x  y' }, [t('class')]),
      el('section', {}, [el('p', {}, [t('kept')])]),
    ]);
    const { out } = redactAll([tree], { mask: ['#a > li', '[data-kind^=secret i]', '[lang|=en], .y'] });
    expect(texts(out[0]!)).toEqual(['******', 'deep', '****', '******', '*****', 'kept']);
    const both = redactAll([tree], { mask: ['ul li'] }).out;
    expect(texts(both[0]!)).toEqual(['******', '****', 'attr', 'hyphen', 'class', 'kept']);
  });

  test('adds out of order (a child listed before its parent) still inherit the selection', () => {
    const tree = doc([el('div', { class: 'pii' }, [])]);
    const parent = el('span', {}, []);
    const child = t(NAME);
    const mutation = {
      type: 3,
      data: {
        source: 0,
        texts: [],
        attributes: [],
        removes: [],
        adds: [
          { parentId: parent.id, nextId: null, node: child },
          { parentId: 12, nextId: null, node: parent },
        ],
      },
      timestamp: 2,
    };
    const divId = (tree.data.node.childNodes[0].childNodes[0] as Ev).id as number;
    mutation.data.adds[1]!.parentId = divId;
    const { out } = redactAll([tree, mutation], { mask: ['.pii'] });
    expect(out[1]!.data.adds[0].node.textContent).toBe('**** ** ***');
  });

  test("an iframe's document, attached by a mutation, is inside its host: masked under a masked iframe, gone under a blocked one", () => {
    const tree = doc([el('iframe', { class: 'pay' }, []), el('iframe', { class: 'chat' }, [])]);
    const body = tree.data.node.childNodes[0] as Ev;
    const [pay, chat] = (body.childNodes as Ev[]).map((n) => n.id as number);
    const attach = (parentId: number) => ({
      parentId,
      nextId: null,
      node: { type: 0, id: id++, childNodes: [el('html', {}, [el('body', {}, [t(NAME)])])] },
    });
    const mutation = {
      type: 3,
      data: {
        source: 0,
        texts: [],
        attributes: [],
        removes: [],
        adds: [attach(pay!), attach(chat!)],
        isAttachIframe: true,
      },
      timestamp: 2,
    };
    const { out } = redactAll([tree, mutation], { block: ['.pay'], mask: ['.chat'] });
    const adds = out[1]!.data.adds as Ev[];
    expect(adds).toHaveLength(1);
    expect(adds[0]!.parentId).toBe(chat);
    expect(JSON.stringify(adds[0])).toContain('**** ** ***');
    expect(JSON.stringify(out)).not.toContain(NAME);
  });

  test('selectors outside the subset, bad patterns and unknown fields are refused when the policy is loaded', () => {
    for (const bad of [
      { mask: ['li:hover'] },
      { mask: ['a + b'] },
      { mask: ['a ~ b'] },
      { block: ['['] },
      { patterns: ['ssn'] },
      { patterns: [{ regex: '(' }] },
      { patterns: [{ regex: 'a*' }] },
      { masks: ['a'] },
      { mask: 'a' },
    ]) {
      expect(() => compileRedactionPolicy(bad as RedactionPolicySpec), JSON.stringify(bad)).toThrow(
        RedactionPolicyError,
      );
    }
  });
});

describe('patterns', () => {
  const set = new PatternSet(['email', 'card', 'phone', { regex: 'ACCT-\\d{4}', flags: 'i' }]);

  test('plain, URL-encoded and base64 forms are masked, lengths kept', () => {
    expect(set.mask(`mail ${EMAIL} now`)).toBe(`mail ${'*'.repeat(EMAIL.length)} now`);
    const encoded = `https://x.example/?u=${encodeURIComponent(EMAIL)}&n=1`;
    const masked = set.mask(encoded);
    expect(masked).toHaveLength(encoded.length);
    expect(masked).toBe(`https://x.example/?u=${'*'.repeat(encodeURIComponent(EMAIL).length)}&n=1`);
    const data = `data:text/plain;base64,${b64(`to: ${EMAIL}, thanks`)}`;
    const out = set.mask(data);
    expect(out).toHaveLength(data.length);
    expect(Buffer.from(out.slice(out.indexOf(',') + 1), 'base64').toString('latin1')).not.toContain('jane');
    // base64 glued to other text, at another alignment.
    const glued = `tok${b64(`xx${EMAIL}`)}`;
    expect(leaks(set.mask(glued))).toEqual([]);
    expect(set.mask('acct-1234')).toBe('*********');
  });

  test('a long run of letters and digits (a base64 image) is searched in linear time', () => {
    const image = `data:image/png;base64,${Buffer.alloc(1_500_000, 'Zm9vYmFy').toString('latin1')}`;
    // A text file of a megabyte as a data: URL, the email deep inside it.
    const withEmail = `data:text/plain;base64,${b64(`${'lorem ipsum '.repeat(80_000)}mail ${EMAIL} now${' dolor'.repeat(40_000)}`)}`;
    const started = performance.now();
    expect(set.mask(image)).toBe(image);
    expect(leaks(set.mask(withEmail))).toEqual([]);
    // Linear: well under a second here. A pattern that retried every start of the run would take hours.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  test('card numbers need a valid Luhn sum; phone numbers need a phone shape; ordinary numbers stay', () => {
    expect(set.mask('4111-1111-1111-1111')).toBe('*******************');
    expect(set.mask('4111 1111 1111 1112')).toBe('4111 1111 1111 1112');
    expect(set.mask(`call ${PHONE}`)).toBe('call ** *** *** ****');
    expect(set.mask('(415) 555-0132')).toBe('***** ********');
    for (const plain of ['2026-11-24', 'width: 1024px', 'order 12345', '1795308171251'])
      expect(set.mask(plain)).toBe(plain);
  });
});

describe('the policy digest', () => {
  test('the same policy gives the same digest whatever its key order; any change gives another', () => {
    const a = compileRedactionPolicy({ mask: ['input'], patterns: ['email'] });
    const b = compileRedactionPolicy(
      JSON.parse('{ "patterns": ["email"],   "mask": ["input"] }') as RedactionPolicySpec,
    );
    expect(a.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(b.digest).toBe(a.digest);
    expect(compileRedactionPolicy({ mask: ['input'], patterns: ['email', 'card'] }).digest).not.toBe(a.digest);
    expect(compileRedactionPolicy({}).digest).not.toBe(a.digest);
  });
});

describe('hostile recordings', () => {
  test('a long chain of adds listed children first is taken in one pass, each under its real parent', () => {
    const n = 100_000;
    const snapshot = {
      type: 2,
      data: {
        node: {
          type: 0,
          id: 1,
          childNodes: [{ type: 2, tagName: 'div', attributes: { class: 'pii' }, childNodes: [], id: 2 }],
        },
      },
      timestamp: 1,
    };
    // Node 3 + k is the parent of node 4 + k; the list names the deepest first, the one under the div last.
    const adds = [];
    for (let k = n - 1; k >= 0; k--)
      adds.push({
        parentId: k === 0 ? 2 : 2 + k,
        nextId: null,
        node: { type: 2, tagName: 'span', attributes: {}, childNodes: [], id: 3 + k },
      });
    adds.push({ parentId: 2 + n, nextId: null, node: { type: 3, textContent: NAME, id: 3 + n } });
    const mutation = { type: 3, data: { source: 0, texts: [], attributes: [], removes: [], adds }, timestamp: 2 };
    const started = performance.now();
    const { out } = redactAll([snapshot, mutation], { mask: ['.pii'] });
    // Linear: about a second here. Taking the list again per resolved parent (quadratic) would take minutes.
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(out[1]!.data.adds.at(-1).node.textContent).toBe('**** ** ***');
  });

  test('an event that cannot be serialised again fails with its index in the replay, even one nothing changed', async () => {
    // A custom event nested 50,000 objects deep: JSON.parse takes it, JSON.stringify runs out of stack. Its bytes
    // cannot be proven to be what was looked at (a duplicated key deep inside would survive), so it is not passed.
    const deep = (leaf: string): Buffer =>
      Buffer.from(`{"type":5,"timestamp":1,"data":${'{"a":'.repeat(50_000)}"${leaf}"${'}'.repeat(50_000)}}`);
    async function* batches(events: Buffer[]) {
      yield { events };
    }
    const policy = compileRedactionPolicy({ patterns: ['email'] });
    const plain = Buffer.from('{"type":4,"data":{"href":"x"},"timestamp":0}');
    for (const leaf of ['nothing here', EMAIL]) {
      const passed: Buffer[] = [];
      const err = await (async () => {
        for await (const b of redactBatches(batches([plain, deep(leaf)]), policy)) passed.push(...b.events!);
      })().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RedactionError);
      expect(err).toMatchObject({ code: 'REDACTION_FAILED', category: 'data', index: 1 });
    }
  });

  test('a duplicated key: the first value never survives, whether or not the last one needed a change', () => {
    const policies: RedactionPolicySpec[] = [{ patterns: ['email'] }, { mask: ['input'] }, {}];
    const events = [
      `{"type":5,"data":{"tag":"t","payload":{"note":"${EMAIL}","note":"fine"}},"timestamp":1}`,
      `{"type":3,"data":{"source":5,"text":"${EMAIL}","text":"x","isChecked":false,"id":7},"timestamp":2}`,
      `{"type":4,"data":{"href":"https://x.example/?u=${EMAIL}","href":"https://x.example/","width":1,"height":1},"timestamp":0}`,
      `{"type":3,"data":{"source":2,"type":2,"id":9,"x":1,"y":2},"timestamp":3,"timestamp":3}`,
    ];
    for (const spec of policies) {
      const redactor = new ReplayRedactor(compileRedactionPolicy(spec));
      for (const text of events) {
        const out = redactor.redact(Buffer.from(text))!.toString('utf8');
        expect(out, `${JSON.stringify(spec)}: ${text}`).not.toContain(EMAIL);
        expect(out).toBe(JSON.stringify(JSON.parse(text)));
      }
    }
    // The same data spelled otherwise (white space, escapes) is written as it is serialised; exact bytes pass as is.
    const redactor = new ReplayRedactor(compileRedactionPolicy({ patterns: ['email'] }));
    const spaced = Buffer.from('{ "type": 3, "data": {"source":2,"type":2,"id":9,"x":1,"y":2}, "timestamp": 3}');
    expect(redactor.redact(spaced)!.toString()).toBe(
      '{"type":3,"data":{"source":2,"type":2,"id":9,"x":1,"y":2},"timestamp":3}',
    );
    const exact = Buffer.from('{"type":3,"data":{"source":2,"type":2,"id":9,"x":1,"y":2},"timestamp":3}');
    expect(redactor.redact(exact)).toBe(exact);
  });

  test('names rrweb reads are left alone only where rrweb reads them; custom and plugin payloads are masked whole', () => {
    const spec: RedactionPolicySpec = { patterns: ['email', { regex: 'secret|fill' }] };
    const named = { level: EMAIL, tagName: EMAIL, property: EMAIL, plugin: EMAIL, rr_type: EMAIL, tag: 'secret' };
    const consoleLog = {
      type: 6,
      data: {
        plugin: 'rrweb/console@1',
        payload: { level: 'log', trace: ['at fill (x.js:1)'], payload: [`"${EMAIL}"`] },
      },
      timestamp: 3,
    };
    const { out } = redactAll(
      [
        { type: 5, data: { tag: `secret ${EMAIL}`, payload: named }, timestamp: 1 },
        { type: 6, data: { plugin: 'my-plugin', payload: named }, timestamp: 2 },
        consoleLog,
        { type: 4, data: { href: `https://x.example/${EMAIL}`, width: 1, height: 1 }, timestamp: 0 },
        {
          type: 2,
          data: {
            node: {
              type: 0,
              id: 1,
              childNodes: [{ type: 2, tagName: 'fill', attributes: { title: EMAIL }, childNodes: [], id: 2 }],
            },
          },
          timestamp: 4,
        },
        {
          type: 3,
          data: {
            source: 9,
            id: 2,
            type: 0,
            commands: [
              { property: 'fillText', args: [EMAIL, 1, 2] },
              { property: 'drawImage', args: [{ rr_type: 'fill', src: 'x' }] },
            ],
          },
          timestamp: 5,
        },
        { type: 3, data: { source: 13, id: 2, index: [0], set: { property: 'fill', value: 'secret' } }, timestamp: 6 },
      ],
      spec,
    );
    expect(leaks(JSON.stringify(out))).toEqual([]);
    const stars = (s: string): string => s.replace(/\S/g, '*');
    const maskedNames = {
      level: stars(EMAIL),
      tagName: stars(EMAIL),
      property: stars(EMAIL),
      plugin: stars(EMAIL),
      rr_type: stars(EMAIL),
      tag: '******',
    };
    expect(out[0]!.data).toEqual({ tag: `****** ${stars(EMAIL)}`, payload: maskedNames });
    expect(out[1]!.data).toEqual({ plugin: 'my-plugin', payload: maskedNames });
    // rrweb's console plugin: the plugin name and the level are what the player dispatches on.
    expect(out[2]!.data).toEqual({
      plugin: 'rrweb/console@1',
      payload: { level: 'log', trace: ['at **** (x.js:1)'], payload: [`"${stars(EMAIL)}"`] },
    });
    expect(out[4]!.data.node.childNodes[0].tagName).toBe('fill');
    expect(out[5]!.data.commands).toEqual([
      { property: 'fillText', args: [stars(EMAIL), 1, 2] },
      { property: 'drawImage', args: [{ rr_type: 'fill', src: 'x' }] },
    ]);
    expect(out[6]!.data.set).toEqual({ property: 'fill', value: '******' });
    // A structural name holding an object is no shelter: what is under it is masked.
    const hidden = redactAll(
      [
        {
          type: 3,
          data: { source: 9, id: 2, type: 0, commands: [{ property: { x: EMAIL }, args: [] }] },
          timestamp: 5,
        },
      ],
      spec,
    );
    expect(leaks(JSON.stringify(hidden.out))).toEqual([]);
  });

  test('card and phone numbers sent as JSON numbers are masked in custom and plugin payloads', () => {
    const payload = {
      card: 4111111111111111,
      amex: 378282246310005,
      long: 4111111111111111111,
      phone: 4155550132,
      count: 3,
      price: 12.5,
      bad: 4111111111111112,
      neg: -4111111111111111,
    };
    const events = [
      { type: 5, data: { tag: 'order', payload }, timestamp: 1795308171251 },
      { type: 6, data: { plugin: 'p', payload: [4111111111111111, { n: 4155550132 }] }, timestamp: 1795308171252 },
      { type: 5, data: { tag: 'n', payload: 4111111111111111 }, timestamp: 1795308171253 },
    ];
    const cardOnly = redactAll(events, { patterns: ['card'] }).out;
    expect(cardOnly[0]!.data.payload).toEqual({
      ...payload,
      card: '*'.repeat(16),
      amex: '*'.repeat(15),
      long: '*'.repeat(19),
      neg: '*'.repeat(17),
    });
    expect(cardOnly[1]!.data.payload).toEqual(['*'.repeat(16), { n: 4155550132 }]);
    expect(cardOnly[2]!.data.payload).toBe('*'.repeat(16));
    // Timestamps and other numbers of rrweb's own are left alone.
    expect(cardOnly.map((e) => e.timestamp)).toEqual([1795308171251, 1795308171252, 1795308171253]);
    const phone = redactAll(events, { patterns: ['phone'] }).out;
    expect(phone[0]!.data.payload.phone).toBe('*'.repeat(10));
    expect(phone[0]!.data.payload.count).toBe(3);
    expect(phone[1]!.data.payload[1]).toEqual({ n: '*'.repeat(10) });
    // Without card or phone, numbers stay numbers.
    expect(redactAll(events, { patterns: ['email'] }).out[0]!.data.payload).toEqual(payload);
  });

  test('a pattern of your own runs in linear time (RE2): one that backtracks catastrophically in JavaScript costs nothing', () => {
    const spec: RedactionPolicySpec = { patterns: [{ regex: '(\\w+\\s?)+@' }] };
    // 41 characters: a backtracking engine tries 2^40 ways to split them before giving up.
    const text = `${'a'.repeat(40)}!`;
    const r = redactAll([{ type: 5, data: { tag: 't', payload: { text } }, timestamp: 1 }], spec);
    expect(r.out[0]!.data.payload.text).toBe(text);
    // And a 4 MB string of words without an @, then one with.
    const big = `${'word '.repeat(800_000)}x`;
    expect(new PatternSet(spec.patterns!).mask(big)).toBe(big);
    expect(new PatternSet(spec.patterns!).mask('to jane doe@x')).toBe('** **** ****x');
  });

  test('patterns RE2 cannot run in linear time (look-around, back-references) are refused when the policy is loaded', () => {
    for (const regex of ['(?=a)b', '(?<!a)b', '(a)\\1', '(?!x)y']) {
      expect(() => compileRedactionPolicy({ patterns: [{ regex }] }), regex).toThrow(/RE2/);
    }
    expect(new PatternSet([{ regex: 'acct-\\d{2}', flags: 'i' }]).mask('ACCT-12')).toBe('*******');
    expect(new PatternSet([{ regex: '^b.c$', flags: 'ms' }]).mask('a\nb\nc')).toBe('a\n*\n*');
  });
});
