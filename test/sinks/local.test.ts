import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { createLocalSink, MANIFEST_FILE } from '../../sinks/local.js';
import { openSink } from '../../sinks/open.js';
import type { ManifestEntry, OutputSpec, Sink } from '../../sinks/sink.js';
import { compileLocalSink } from './helpers/compile-sinks.js';
import { JSON_AND_NDJSON_OUTPUTS } from './helpers/outputs.js';
import { type LooseEntry, line } from '../sinks/helpers/entries.js';

const events = (n: number, from = 0): Buffer[] =>
  Array.from({ length: n }, (_, i) =>
    Buffer.from(
      JSON.stringify({ type: 3, timestamp: 1763629200000 + from + i, data: { s: 'é😀\u2028', i: from + i } }),
    ),
  );

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else out.push(path);
  }
  return out;
}

function entry(replay_id: string, extra: Record<string, unknown> = {}): ManifestEntry {
  return line({ replay_id, status: 'ok', recorded_at: new Date().toISOString(), ...extra });
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'local-sink-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

async function freshSink(): Promise<{ dir: string; sink: Sink }> {
  const dir = await mkdtemp(join(base, 't-'));
  return { dir, sink: createLocalSink(dir) };
}

describe('local sink: formats', () => {
  for (const output of JSON_AND_NDJSON_OUTPUTS) {
    it(`writes ${output.format}${output.gzip ? ' + gzip' : ''} with matching sha256 and byte count`, async () => {
      const { dir, sink } = await freshSink();
      const batch1 = events(3);
      const batch2 = events(1000, 3);
      const writer = await sink.open('dev-1/1763629200000', output);
      expect(writer.key).toBe(sink.keyFor('dev-1/1763629200000', output));
      await writer.write(batch1);
      await writer.write([]);
      await writer.write(batch2);
      const result = await writer.commit();
      const stored = await readFile(join(dir, ...result.key.split('/')));
      expect(result.bytes).toBe(stored.length);
      expect(result.sha256).toBe(createHash('sha256').update(stored).digest('hex'));
      expect(result.eventCount).toBe(1003);
      const text = (output.gzip ? gunzipSync(stored) : stored).toString('utf8');
      const all = [...batch1, ...batch2].map((b) => JSON.parse(b.toString()));
      if (output.format === 'json') {
        expect(JSON.parse(text)).toEqual(all);
        expect(text).toBe('[' + [...batch1, ...batch2].map(String).join(',') + ']');
      } else {
        expect(text.endsWith('\n')).toBe(true);
        expect(
          text
            .split('\n')
            .slice(0, -1)
            .map((l) => JSON.parse(l)),
        ).toEqual(all);
      }
      expect(await sink.exists(result.key)).toBe(true);
      expect((await walk(dir)).filter((p) => p.endsWith('.tmp'))).toEqual([]);
      await sink.close();
    });
  }

  it('writes an empty replay as [] (json) and as an empty file (ndjson)', async () => {
    const { dir, sink } = await freshSink();
    const a = await (await sink.open('d/empty', { format: 'json', gzip: false })).commit();
    expect(await readFile(join(dir, 'd', 'empty.json'), 'utf8')).toBe('[]');
    expect(a.eventCount).toBe(0);
    const b = await (await sink.open('d/empty', { format: 'ndjson', gzip: true })).commit();
    expect(gunzipSync(await readFile(join(dir, 'd', 'empty.ndjson.gz'))).length).toBe(0);
    expect(b.bytes).toBeGreaterThan(0);
    await sink.close();
  });

  it('replaces an earlier output at the same key whole', async () => {
    const { dir, sink } = await freshSink();
    const spec: OutputSpec = { format: 'json', gzip: false };
    const w1 = await sink.open('d/s', spec);
    await w1.write(events(50));
    await w1.commit();
    const w2 = await sink.open('d/s', spec);
    await w2.write(events(2));
    await w2.commit();
    expect(JSON.parse(await readFile(join(dir, 'd', 's.json'), 'utf8'))).toHaveLength(2);
    await sink.close();
  });
});

describe('local sink: atomicity', () => {
  it('abort leaves nothing at the final key and no temporary file', async () => {
    const { dir, sink } = await freshSink();
    const writer = await sink.open('dev/aborted', { format: 'ndjson', gzip: true });
    await writer.write(events(500));
    expect((await walk(dir)).some((p) => p.endsWith('.tmp'))).toBe(true);
    await writer.abort(new Error('source failed'));
    await writer.abort();
    expect(await sink.exists(writer.key)).toBe(false);
    expect(await walk(dir)).toEqual([]);
    await expect(writer.write(events(1))).rejects.toMatchObject({ code: 'SINK_STATE' });
    await expect(writer.commit()).rejects.toMatchObject({ code: 'SINK_STATE' });
    await sink.close();
  });

  it('a failure mid-write (unframeable event) removes the partial output', async () => {
    const { dir, sink } = await freshSink();
    const writer = await sink.open('dev/bad', { format: 'ndjson', gzip: false });
    await writer.write(events(100));
    const err = await writer.write([Buffer.from('{"a":"line\nbreak"}')]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ code: 'SINK_BAD_EVENT', index: 100, replayId: 'dev/bad', key: 'dev/bad.ndjson' });
    expect(await walk(dir)).toEqual([]);
    await expect(writer.commit()).rejects.toBeInstanceOf(SinkError);
    await sink.close();
  });

  it('a process killed mid-write leaves no final file; the next run cleans its temp file and completes', async () => {
    const compiled = await compileLocalSink();
    const { dir, sink } = await freshSink();
    const script = join(compiled, 'kill-child.mjs');
    await writeFile(
      script,
      `import { createLocalSink } from ${JSON.stringify(join(compiled, 'local.js'))};
const sink = createLocalSink(process.argv[2]);
const w = await sink.open('dev/killed', { format: 'json', gzip: false });
await w.write([Buffer.from('{"i":1}'), Buffer.from('{"i":2}')]);
process.stdout.write('written\\n');
setInterval(() => {}, 1000);
`,
    );
    const child = spawn(process.execPath, [script, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
    expect(chunk.toString()).toBe('written\n');
    child.kill('SIGKILL');
    await once(child, 'exit');
    const left = (await walk(dir)).map((p) => relative(dir, p));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(new RegExp(`^dev\\${sep}\\.killed\\.json\\.${child.pid}\\.[0-9a-f]{8}\\.tmp$`));
    expect(await sink.exists('dev/killed.json')).toBe(false);

    const writer = await sink.open('dev/killed', { format: 'json', gzip: false });
    await writer.write(events(3));
    await writer.commit();
    expect((await walk(dir)).map((p) => relative(dir, p))).toEqual([join('dev', 'killed.json')]);
    await sink.close();
    await rm(compiled, { recursive: true, force: true });
  });
});

describe('local sink: paths', () => {
  it('keeps hostile ids inside the target and distinct', async () => {
    const { dir, sink } = await freshSink();
    const ids = [
      '../../etc/passwd',
      '../x',
      './x',
      'a/../../b',
      '..',
      '.',
      '/',
      '//',
      '\\..\\x',
      'C:\\x/y',
      '%2e%2e/%2F',
      '\0/\x01',
      'CON/aux',
      'con/AUX',
      'é/1',
      'e\u0301/1',
      'A/1',
      'a/1',
      'x'.repeat(600) + '/1',
      'x'.repeat(600) + '/2',
      '~/.ssh',
      '-rf/--',
      '_manifest/x',
      'a/manifest.ndjson',
      '/etc/passwd',
    ];
    const keys = new Set<string>();
    for (const id of ids) {
      const writer = await sink.open(id, { format: 'json', gzip: false });
      await writer.write([Buffer.from(JSON.stringify({ id }))]);
      const { key } = await writer.commit();
      keys.add(key);
    }
    expect(keys.size).toBe(ids.length);
    const files = await walk(dir);
    expect(files).toHaveLength(ids.length);
    for (const file of files) {
      expect(resolve(file).startsWith(resolve(dir) + sep)).toBe(true);
      const content = JSON.parse(await readFile(file, 'utf8')) as Array<{ id: string }>;
      expect(sink.keyFor(content[0]!.id, { format: 'json', gzip: false })).toBe(
        relative(dir, file).split(sep).join('/'),
      );
    }
    await expect(sink.exists('../outside.json')).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    await expect(sink.exists('a/../../outside.json')).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    await sink.close();
  });

  it('refuses to write through a symlinked folder that leads outside the target', async () => {
    const { dir, sink } = await freshSink();
    const outside = await mkdtemp(join(base, 'outside-'));
    await symlink(outside, join(dir, 'evil'), 'dir');
    await expect(sink.open('evil/1', { format: 'json', gzip: false })).rejects.toMatchObject({
      code: 'SINK_PATH_ESCAPE',
    });
    expect(await readdir(outside)).toEqual([]);
    await sink.close();
  });

  it('openSink picks local for paths and file: URLs and refuses other schemes', async () => {
    const dir = await mkdtemp(join(base, 'open-'));
    expect(openSink(dir).target).toBe(resolve(dir));
    expect(openSink('file://' + dir).target).toBe(resolve(dir));
    expect(openSink('s3://bucket/some/prefix/', { s3: { region: 'us-east-1' } }).target).toBe(
      's3://bucket/some/prefix',
    );
    expect(() => openSink('gs://bucket/x')).toThrow(SinkError);
    expect(() => openSink('')).toThrow(SinkError);
  });
});

describe('local sink: manifest', () => {
  it('appends and reads entries in order', async () => {
    const { dir, sink } = await freshSink();
    expect(await collect(sink.readManifest())).toEqual([]);
    await Promise.all([
      sink.appendManifest(entry('a/1')),
      sink.appendManifest(entry('a/2', { status: 'failed', error: { code: 'X', message: 'm\nn' } })),
    ]);
    await sink.appendManifest(entry('a/1', { status: 'skipped', reason: 'settling' }));
    const read = await collect(sink.readManifest());
    expect(read.map((e) => [e.replay_id, e.status])).toEqual([
      ['a/1', 'ok'],
      ['a/2', 'failed'],
      ['a/1', 'skipped'],
    ]);
    expect((read[1] as LooseEntry).error?.message).toBe('m\nn');
    const raw = await readFile(join(dir, MANIFEST_FILE), 'utf8');
    expect(raw.split('\n')).toHaveLength(4);
    expect(raw.startsWith('{"replay_id":"a/1"')).toBe(true);
    await sink.close();
    await expect(sink.appendManifest(entry('a/3'))).rejects.toMatchObject({ code: 'SINK_STATE' });
  });

  it('tolerates a torn last line, and a torn fragment followed by later appends', async () => {
    const { dir, sink } = await freshSink();
    await sink.appendManifest(entry('a/1'));
    await sink.close();
    const path = join(dir, MANIFEST_FILE);
    await appendFile(path, '{"replay_id":"a/2","status":"o');
    const first = createLocalSink(dir);
    expect((await collect(first.readManifest())).map((e) => e.replay_id)).toEqual(['a/1']);
    // The next process ends the torn line before its own.
    await first.appendManifest(entry('a/3'));
    expect((await collect(first.readManifest())).map((e) => e.replay_id)).toEqual(['a/1', 'a/3']);
    await first.close();
    // A fragment another process's line landed right after, on the same line.
    await appendFile(path, '{"replay_id":"a/4","sta' + JSON.stringify(entry('a/5')) + '\n');
    expect((await collect(createLocalSink(dir).readManifest())).map((e) => e.replay_id)).toEqual(['a/1', 'a/3', 'a/5']);
    // Anything that is not a manifest entry is an error, not silently skipped.
    await appendFile(path, 'garbage\n');
    await expect(collect(createLocalSink(dir).readManifest())).rejects.toMatchObject({
      code: 'MANIFEST_CORRUPT',
      index: 5,
    });
  });

  it('several processes appending at once never interleave lines', async () => {
    const compiled = await compileLocalSink();
    const dir = await mkdtemp(join(base, 'multi-'));
    await mkdir(dir, { recursive: true });
    const script = join(compiled, 'append-child.mjs');
    await writeFile(
      script,
      `import { createLocalSink } from ${JSON.stringify(join(compiled, 'local.js'))};
const [dir, worker, count] = process.argv.slice(2);
const sink = createLocalSink(dir);
for (let i = 0; i < Number(count); i++) {
  await sink.appendManifest({ replay_id: 'w' + worker + '/' + i, status: 'ok', recorded_at: new Date().toISOString(),
    reason: String(worker).repeat(1000 + ((i * 7919) % 9000)) });
}
await sink.close();
`,
    );
    const workers = 4;
    const perWorker = 150;
    const children = Array.from({ length: workers }, (_, w) =>
      spawn(process.execPath, [script, dir, String(w), String(perWorker)], { stdio: ['ignore', 'ignore', 'inherit'] }),
    );
    const codes = await Promise.all(children.map(async (c) => (await once(c, 'exit'))[0]));
    expect(codes).toEqual(Array(workers).fill(0));
    const raw = await readFile(join(dir, MANIFEST_FILE), 'utf8');
    const lines = raw.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(workers * perWorker);
    const seen = new Map<string, number[]>();
    for (const line of lines) {
      const e = JSON.parse(line) as LooseEntry;
      const [w, i] = e.replay_id.slice(1).split('/');
      expect(e.reason).toBe(w!.repeat(1000 + ((Number(i) * 7919) % 9000)));
      seen.set(w!, [...(seen.get(w!) ?? []), Number(i)]);
    }
    for (let w = 0; w < workers; w++) {
      expect(seen.get(String(w))).toEqual(Array.from({ length: perWorker }, (_, i) => i));
    }
    const read = await collect(createLocalSink(dir).readManifest());
    expect(read).toHaveLength(workers * perWorker);
    await rm(compiled, { recursive: true, force: true });
  });
});
