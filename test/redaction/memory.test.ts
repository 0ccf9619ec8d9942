/**
 * Redaction in bounded memory (issue #40, item 2): one event of 64 MiB — the largest a run with `--max-event-size 64MiB`
 * takes — holding one string of percent escapes (`%41…`: the decoded view's per-character tables took ~35 times the
 * string), a 64 MiB `data:` URL (base64: the run's regular expression overflowed its stack above ~6 MiB) or plain
 * text, is redacted under the built-in patterns in a child process whose V8 heap is capped at 6 times the event plus
 * the process's own, and its peak resident memory (VmHWM) grows by at most 6 times the event: the per-event term of
 * docs/REDACTION.md. The child runs the built package (`dist/`, as the CLI tests do).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { packageRoot } from '../../src/util/package-root.js';

const MIB = 1024 * 1024;
const SIZE = 64 * MIB;
/** What redacting one event may hold at its peak, in times the event's size (docs/REDACTION.md). */
const TIMES = 6;
/** The child's own heap before any event (modules, the policy). */
const OWN_HEAP_MIB = 64;

const CHILD = `
import { readFileSync } from 'node:fs';
const { ReplayRedactor, compileRedactionPolicy } = await import(process.env.REDACTION_MODULE);
const [kind, size] = [process.env.KIND, Number(process.env.SIZE)];
const unit = { percent: '%41', data: 'QUJD', text: 'jane doe ' }[kind];
const head = Buffer.from('{"type":3,"timestamp":1,"data":{"source":0,"adds":[],"removes":[],"attributes":[],"texts":[{"id":1,"value":"' + (kind === 'data' ? 'data:image/png;base64,' : ''));
const tail = Buffer.from('"}]}}');
const event = Buffer.concat([head, Buffer.alloc(size - head.length - tail.length, unit), tail]);
const hwm = () => Number(/VmHWM:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
const redactor = new ReplayRedactor(compileRedactionPolicy({ patterns: ['email', 'card', 'phone'] }));
const before = hwm();
const out = redactor.redact(event);
process.stdout.write(JSON.stringify({ grew: hwm() - before, bytes: out.length }));
`;

/** Runs the child on one kind of event: its exit code and what it printed. */
function child(kind: string): Promise<{ code: number | null; out: string; err: string }> {
  const heap = Math.ceil((TIMES * SIZE) / MIB) + OWN_HEAP_MIB;
  const proc = spawn(process.execPath, [`--max-old-space-size=${heap}`, '--input-type=module', '-e', CHILD], {
    env: {
      ...process.env,
      KIND: kind,
      SIZE: String(SIZE),
      REDACTION_MODULE: join(packageRoot(), 'dist', 'src', 'redaction', 'index.js'),
    },
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, out, err: err.slice(-2000) })));
}

describe('redacting one event at the largest event size', () => {
  test.each(['percent', 'data', 'text'])(
    '%s: under a heap cap of 6× the event, peak memory grows by at most 6× the event',
    async (kind) => {
      const r = await child(kind);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      const { grew, bytes } = JSON.parse(r.out) as { grew: number; bytes: number };
      expect(bytes).toBe(SIZE);
      expect(grew).toBeLessThanOrEqual(TIMES * SIZE);
    },
    180_000,
  );
});
