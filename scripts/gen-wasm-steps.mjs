// The WebAssembly scanner's byte tests, generated from the grammar (decoders/json-grammar.ts) so that the grammar is
// one edit in one file: scripts/build-wasm.mjs writes decoders/wasm/json-steps.ts with the others (and checks it).
//
// The grammar's functions run here, at build time, on each of the 256 byte values; each step below names the bytes
// that lead from a state (in every context the scanner merges) to one answer, and becomes an inlined AssemblyScript
// predicate made of comparisons (`c == 0x22`, `c - 0x30 < 10`): the module takes its structural decisions through
// them at no cost, instead of calling the grammar's functions per byte (which measured 6–24% slower).
//
// A step that merges several states or contexts holds the bytes that lead to its answer in *all* of them (the
// intersection): whatever the grammar becomes, the module then never accepts a byte that the grammar refuses; where it
// refuses more, the TypeScript loop scans the chunk instead, with the same result.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ts from 'typescript';

/** The grammar's shared part and the layout's const enums, as one JavaScript module to call at build time. */
async function loadGrammar(root, sharedPart) {
  const options = { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, preserveConstEnums: true };
  const layout = ts.transpileModule(await readFile(join(root, 'decoders/wasm/layout.ts'), 'utf8'), {
    compilerOptions: options,
  }).outputText;
  const grammar = ts.transpileModule(sharedPart, { compilerOptions: options }).outputText;
  const text = `${layout}\n${grammar}`;
  return import(`data:text/javascript;base64,${Buffer.from(text).toString('base64')}`);
}

const BYTES = Array.from({ length: 256 }, (_, c) => c);

/** The steps: name, what it says, and for each merged state or context the grammar's answer that the byte must give. */
function steps(g) {
  const { State, Container, Literal, ElemKind, STAY, CLOSE, REFUSE } = g;
  const both = (f) => [(c) => f(c, false), (c) => f(c, true)];
  const is = (fs, answer) => fs.map((f) => (c) => f(c) === answer);
  const value = both(g.valueNext);
  const key = both(g.keyNext);
  const inObject = (c) => g.afterNext(c, Container.object);
  const inArray = (c) => g.afterNext(c, Container.array);
  const number = (st) => (c) => g.numberNext(c, st);
  const digits = [number(State.int), number(State.frac), number(State.expDig)];
  const comma = [(c) => inObject(c) === State.key, (c) => inArray(c) === State.value];
  const ends = is([number(State.zero), ...digits], State.after);
  const literal = (lit) => [...is(value, State.lit), (c) => g.literalStart(c) === lit];
  return [
    ['startOpens', "before the outer array: its '['", is([g.startNext], State.first)],
    ['startStays', 'before the outer array: whitespace', is([g.startNext], STAY)],
    ['endStays', 'after the outer array: whitespace', is([g.endNext], STAY)],
    ['valueStays', 'where a value is expected: whitespace', is(value, STAY)],
    ['firstCloses', "right after '[': the ']' of the empty array", is([(c) => g.valueNext(c, true)], CLOSE)],
    ['valueOpensObject', 'a value that is an object', is(value, State.objFirst)],
    ['valueOpensArray', 'a value that is an array', is(value, State.first)],
    ['valueOpensString', 'a value that is a string', is(value, State.str)],
    [
      'valueStartsNumber',
      "a number's first byte ('-' or a digit)",
      value.map((f) => (c) => [State.minus, State.zero, State.int].includes(f(c))),
    ],
    ['valueStartsMinus', "a number's '-'", is(value, State.minus)],
    ['valueStartsZero', "a number's leading '0'", is(value, State.zero)],
    ['valueStartsInt', "a number's first digit (not '0')", is(value, State.int)],
    ['valueStartsTrue', "the literal 'true'", literal(Literal.trueValue)],
    ['valueStartsFalse', "the literal 'false'", literal(Literal.falseValue)],
    ['valueStartsNull', "the literal 'null'", literal(Literal.nullValue)],
    [
      'elementIsObject',
      'an element of the outer array that is an object (an event)',
      is([g.elementKindOf], ElemKind.object),
    ],
    [
      'elementIsString',
      'an element of the outer array that is a string (a packed event)',
      is([g.elementKindOf], ElemKind.string),
    ],
    ['keyOpensString', 'where a key is expected: its opening quote', is(key, State.str)],
    ['keyStays', 'where a key is expected: whitespace', is(key, STAY)],
    ['objFirstCloses', "right after '{': the '}' of the empty object", is([(c) => g.keyNext(c, true)], CLOSE)],
    ['colonToValue', "after a key: its ':'", is([g.colonNext], State.value)],
    ['colonStays', 'after a key: whitespace', is([g.colonNext], STAY)],
    ['afterComma', 'after a value: the separator before the next member (objects) or value (arrays)', comma],
    ['afterClosesObject', "after a value in an object: its '}'", is([inObject], CLOSE)],
    ['afterClosesArray', "after a value in an array: its ']'", is([inArray], CLOSE)],
    ['afterStays', 'after a value: whitespace', is([inObject, inArray], STAY)],
    ['stringToEscape', 'in a string or key: a backslash', is(both(g.stringNext), State.esc)],
    [
      'stringCloses',
      'in a string or key: its closing quote',
      [(c) => g.stringNext(c, false) === State.after, (c) => g.stringNext(c, true) === State.colon],
    ],
    ['minusToDigit', "after a number's '-': its first digit", [(c) => g.minusNext(c) !== REFUSE]],
    [
      'numberZero',
      "a number's leading '0', first or after '-'",
      [...is(value, State.zero), (c) => g.minusNext(c) === State.zero],
    ],
    [
      'numberInt',
      "a number's first digit (not '0'), first or after '-'",
      [...is(value, State.int), (c) => g.minusNext(c) === State.int],
    ],
    ['numberStays', 'in the digits of an integer part, fraction or exponent: one more digit', is(digits, STAY)],
    [
      'numberToDot',
      "after a number's integer part ('0' or digits): its '.'",
      is([number(State.zero), number(State.int)], State.dot),
    ],
    [
      'numberToExp',
      "after a number's integer part or fraction: 'e' or 'E'",
      is([number(State.zero), number(State.int), number(State.frac)], State.exp),
    ],
    ['numberEnds', 'after the digits of a number: a byte that ends it (read again after the number)', ends],
    ['numberEndsAtComma', 'after the digits of a number: the separator after it (`afterComma`)', [...ends, ...comma]],
    ['dotToFrac', "after a number's '.': its first digit", is([g.dotNext], State.frac)],
  ];
}

/** The bytes that satisfy every test. */
function bytesOf(tests) {
  return BYTES.filter((c) => tests.every((t) => t(c)));
}

/** The runs of consecutive values in the sorted `bytes`: [from, to] each. */
function runs(bytes) {
  const out = [];
  for (let k = 0; k < bytes.length; ) {
    let j = k;
    while (j + 1 < bytes.length && bytes[j + 1] === bytes[j] + 1) j++;
    out.push([bytes[k], bytes[j]]);
    k = j + 1;
  }
  return out;
}

/**
 * An expression of `c` (a u32 in the module, so a range is one unsigned comparison) true exactly for `bytes`, and the
 * same expression as a JavaScript function that reads it as the module does: the generator checks its own output.
 */
function expression(bytes) {
  const complement = BYTES.filter((c) => !bytes.includes(c));
  const negate = runs(complement).length < runs(bytes).length;
  const parts = runs(negate ? complement : bytes);
  const hex = (n) => `0x${n.toString(16).padStart(2, '0')}`;
  const text = parts.map(([from, to]) =>
    from === to ? `c == ${hex(from)}` : from === 0 ? `c < ${hex(to + 1)}` : `c - ${hex(from)} < ${to - from + 1}`,
  );
  const test = (c) => parts.some(([from, to]) => (c - from) >>> 0 < to - from + 1) !== negate;
  if (parts.length === 0) return { text: negate ? 'true' : 'false', test };
  return { text: negate ? `!(${text.join(' || ')})` : text.join(' || '), test };
}

/**
 * The bytes the module's 16-byte string skip stops at: a quote, a backslash and the bytes 0 to `controlMax` (the
 * zero bytes after a chunk must stop it). Every byte that does not simply stay in a string must be among them.
 */
function stringStops(g) {
  const stops = BYTES.filter((c) => g.stringNext(c, false) !== g.State.str || g.stringNext(c, true) !== g.State.str);
  let controlMax = 0;
  while (stops.includes(controlMax + 1)) controlMax++;
  const others = stops.filter((c) => c > controlMax);
  if (others.length > 2) {
    throw new Error(
      `strings now stop at ${others.length} bytes above the control range: plainEnd in decoders/wasm/scanner.ts tests two`,
    );
  }
  const [quote, backslash] = others.length === 2 ? others : [others[0] ?? 0, others[0] ?? 0];
  return { quote, backslash, controlMax };
}

/** The text of decoders/wasm/json-steps.ts, from the shared part of decoders/json-grammar.ts. */
export async function stepsSource(root, sharedPart, source) {
  const g = await loadGrammar(root, sharedPart);
  const out = [
    `// Generated by scripts/gen-wasm-steps.mjs from ${source}: the grammar's functions evaluated on every byte value.`,
    '// Do not edit: change that file and run `npm run build:wasm`.',
    '//',
    '// Each predicate holds the bytes that lead from a state to one answer of the grammar (in every context it names:',
    '// the intersection), as comparisons that the compiler inlines; decoders/wasm/scanner.ts takes its decisions',
    '// through them.',
    '',
  ];
  for (const [name, doc, tests] of steps(g)) {
    const bytes = bytesOf(tests);
    // The member lane reads the zero bytes after a chunk as the end of what it takes; a number ends at any byte.
    if (bytes.includes(0) && !name.startsWith('numberEnds')) {
      throw new Error(`${name}: the grammar takes byte 0 here, which the module reads after a chunk's end`);
    }
    const { text, test } = expression(bytes);
    for (const c of BYTES) if (test(c) !== bytes.includes(c)) throw new Error(`${name}: ${text} is wrong for ${c}`);
    out.push(
      `/** ${doc[0].toUpperCase()}${doc.slice(1)}. */`,
      '@inline',
      `export function ${name}(c: u32): bool {`,
      `  return ${text};`,
      '}',
      '',
    );
  }
  // The member lane ends a number at whatever follows it and reads that byte as what follows a value: a byte that
  // may follow a value must end a number.
  const table = new Map(steps(g).map(([name, , tests]) => [name, bytesOf(tests)]));
  for (const name of ['afterComma', 'afterClosesObject', 'afterClosesArray', 'afterStays']) {
    const left = table.get(name).filter((c) => !table.get('numberEnds').includes(c));
    if (left.length > 0)
      throw new Error(
        `${name}: byte ${left[0]} does not end a number; the member lane in decoders/wasm/scanner.ts assumes it does`,
      );
  }
  const { quote, backslash, controlMax } = stringStops(g);
  out.push(
    "/** The bytes a string's 16-byte skip stops at besides 0 to `STRING_CONTROL_MAX`: every other byte stays in it. */",
    `export const STRING_QUOTE: u8 = 0x${quote.toString(16)};`,
    `export const STRING_BACKSLASH: u8 = 0x${backslash.toString(16)};`,
    `export const STRING_CONTROL_MAX: u8 = 0x${controlMax.toString(16)};`,
    '',
  );
  return out.join('\n');
}
