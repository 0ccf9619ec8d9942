import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { createLocalSink, MANIFEST_FILE } from '../../sinks/local.js';
import type { ManifestEntry, OutputSpec } from '../../sinks/sink.js';
import { line } from '../sinks/helpers/entries.js';

const JSON_OUT: OutputSpec = { format: 'json', gzip: false };
const event = (i: number): Buffer => Buffer.from(JSON.stringify({ type: 3, timestamp: 1763629200000 + i }));
const entry = (replay_id: string): ManifestEntry =>
  line({ replay_id, status: 'ok', recorded_at: new Date().toISOString() });

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** Every entry under `dir` (folders too), `/`-separated, sorted. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map((p) => p.split('\\').join('/')).sort();
}

let base: string;
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'local-hostile-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A target folder and, beside it (outside it), a folder holding a file with known content. */
async function targetAndOutside(): Promise<{ dir: string; outside: string; victim: string; original: string }> {
  const dir = await mkdtemp(join(base, 't-'));
  const outside = await mkdtemp(join(base, 'outside-'));
  const victim = join(outside, 'victim.ndjson');
  const original = JSON.stringify(entry('outside/1')) + '\n';
  await writeFile(victim, original);
  return { dir, outside, victim, original };
}

describe('local sink: a symlinked manifest is refused, never followed', () => {
  it('appendManifest refuses a manifest.ndjson that is a symlink to a file outside the target (file untouched)', async () => {
    const { dir, victim, original } = await targetAndOutside();
    await symlink(victim, join(dir, MANIFEST_FILE));
    const sink = createLocalSink(dir);
    const err = await sink.appendManifest(entry('d/1')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ code: 'SINK_PATH_ESCAPE', key: MANIFEST_FILE, target: dir });
    expect((err as Error).message).toMatch(/symbolic link/);
    expect((err as Error).message).toContain(MANIFEST_FILE);
    expect(await readFile(victim, 'utf8')).toBe(original);
    await sink.close();
  });

  it('a dangling manifest symlink is not created through', async () => {
    const { dir, outside } = await targetAndOutside();
    const planted = join(outside, 'created-by-the-sink.ndjson');
    await symlink(planted, join(dir, MANIFEST_FILE));
    const sink = createLocalSink(dir);
    await expect(sink.appendManifest(entry('d/1'))).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    await expect(lstat(planted)).rejects.toMatchObject({ code: 'ENOENT' });
    await sink.close();
  });

  it('readManifest refuses a symlinked manifest instead of reading the file it points to', async () => {
    const { dir, victim } = await targetAndOutside();
    await symlink(victim, join(dir, MANIFEST_FILE));
    const sink = createLocalSink(dir);
    await expect(collect(sink.readManifest())).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE', key: MANIFEST_FILE });
    await sink.close();
  });

  it('a target folder that is itself a symlink (the user chose it) is used as given', async () => {
    const real = await mkdtemp(join(base, 'real-'));
    const link = join(base, `link-${Date.now()}`);
    await symlink(real, link, 'dir');
    const sink = createLocalSink(link);
    const writer = await sink.open('d/1', JSON_OUT);
    await writer.write([event(1)]);
    await writer.commit();
    await sink.appendManifest(entry('d/1'));
    expect((await collect(sink.readManifest())).map((e) => e.replay_id)).toEqual(['d/1']);
    expect(await tree(real)).toEqual(['d', 'd/1.json', MANIFEST_FILE]);
    await sink.close();
  });
});

describe('local sink: device folders must be real folders under the target', () => {
  it('refuses a device folder that is a symlink, also when it points inside the target; names the key', async () => {
    const { dir } = await targetAndOutside();
    await mkdir(join(dir, 'elsewhere'));
    await symlink(join(dir, 'elsewhere'), join(dir, 'dev'), 'dir');
    const sink = createLocalSink(dir);
    const err = await sink.open('dev/1', JSON_OUT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ code: 'SINK_PATH_ESCAPE', key: 'dev/1.json', replayId: 'dev/1' });
    expect((err as Error).message).toContain('dev/1.json');
    expect(await readdir(join(dir, 'elsewhere'))).toEqual([]);
    await sink.close();
  });

  it('refuses a device folder that is a symlink to a folder outside the target (nothing written there)', async () => {
    const { dir, outside } = await targetAndOutside();
    await symlink(outside, join(dir, 'dev'), 'dir');
    const sink = createLocalSink(dir);
    await expect(sink.open('dev/1', JSON_OUT)).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE', key: 'dev/1.json' });
    expect(await readdir(outside)).toEqual(['victim.ndjson']);
    await sink.close();
  });

  it('a device "folder" that is a file fails that replay with the key named', async () => {
    const { dir } = await targetAndOutside();
    await writeFile(join(dir, 'dev'), 'not a folder');
    const sink = createLocalSink(dir);
    const err = await sink.open('dev/1', JSON_OUT).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'SINK_IO', key: 'dev/1.json' });
    expect((err as Error).message).toContain('dev/1.json');
    await sink.close();
  });

  it('exists() does not follow a symlink at the key or at its folder', async () => {
    const { dir, outside, victim } = await targetAndOutside();
    await mkdir(join(dir, 'a'));
    await symlink(victim, join(dir, 'a', '1.json'));
    await symlink(outside, join(dir, 'b'), 'dir');
    await writeFile(join(outside, '1.json'), '[]');
    const sink = createLocalSink(dir);
    expect(await sink.exists('a/1.json')).toBe(false);
    expect(await sink.exists('b/1.json')).toBe(false);
    await sink.close();
  });
});

describe('local sink: a replay that does not commit leaves no empty folder', () => {
  it('an aborted replay (nothing written, or some events) removes the device folder it created', async () => {
    const { dir } = await targetAndOutside();
    const sink = createLocalSink(dir);
    const empty = await sink.open('dev-a/1', JSON_OUT);
    await empty.abort('no files');
    const some = await sink.open('dev-b/1', JSON_OUT);
    await some.write([event(1), event(2)]);
    await some.abort(new Error('decode failed'));
    await sink.appendManifest(entry('dev-a/1'));
    expect(await tree(dir)).toEqual([MANIFEST_FILE]);
    await sink.close();
  });

  it('a folder holding other outputs stays; one shared by writers in flight stays until the last one ends', async () => {
    const { dir } = await targetAndOutside();
    const sink = createLocalSink(dir);
    const kept = await sink.open('dev/kept', JSON_OUT);
    await kept.write([event(0)]);
    await kept.commit();
    const failing = await sink.open('dev/failing', JSON_OUT);
    await failing.abort(new Error('x'));
    expect(await tree(dir)).toEqual(['dev', 'dev/kept.json']);

    const a = await sink.open('shared/a', JSON_OUT);
    const b = await sink.open('shared/b', JSON_OUT);
    const c = await sink.open('shared/c', JSON_OUT);
    await a.abort(new Error('a failed'));
    await b.write([event(1)]);
    await c.abort(new Error('c failed'));
    const done = await b.commit();
    expect(done.key).toBe('shared/b.json');
    const d = await sink.open('gone/d', JSON_OUT);
    const e = await sink.open('gone/e', JSON_OUT);
    await Promise.all([d.abort(new Error('d')), e.abort(new Error('e'))]);
    expect(await tree(dir)).toEqual(['dev', 'dev/kept.json', 'shared', 'shared/b.json']);
    await sink.close();
  });

  it('two sinks on one target (as two processes) failing and writing in one folder at once: every commit lands', async () => {
    const { dir } = await targetAndOutside();
    const failing = createLocalSink(dir, { cleanStaleTemp: false });
    const writing = createLocalSink(dir, { cleanStaleTemp: false });
    const rounds = 150;
    const fail = async (): Promise<void> => {
      for (let i = 0; i < rounds; i++) await (await failing.open(`dev/f${i}`, JSON_OUT)).abort(new Error('failed'));
    };
    const write = async (): Promise<string[]> => {
      const keys: string[] = [];
      for (let i = 0; i < rounds; i++) {
        const w = await writing.open(`dev/w${i}`, JSON_OUT);
        await w.write([event(i)]);
        keys.push((await w.commit()).key);
        // Remove it again so that the folder keeps becoming empty while the other sink works in it.
        await rm(join(dir, ...keys[keys.length - 1]!.split('/')));
      }
      return keys;
    };
    const [, keys] = await Promise.all([fail(), write()]);
    expect(keys).toHaveLength(rounds);
    await (await failing.open('dev/last', JSON_OUT)).abort(new Error('failed'));
    expect(await tree(dir)).toEqual([]);
    await failing.close();
    await writing.close();
  });
});

describe('local sink: remove() takes only output keys and never goes through a symbolic link', () => {
  it('removes an output and its folder once empty, answers false when none is there, refuses other keys', async () => {
    const { dir } = await targetAndOutside();
    const sink = createLocalSink(dir);
    for (const id of ['dev/a', 'dev/b', 'other/c']) {
      const w = await sink.open(id, JSON_OUT);
      await w.write([event(1)]);
      await w.commit();
    }
    await sink.appendManifest(entry('dev/a'));
    expect(await sink.remove!('dev/a.json')).toBe(true);
    expect(await sink.remove!('dev/a.json')).toBe(false);
    expect(await sink.remove!('nowhere/x.json')).toBe(false);
    expect(await sink.remove!('other/c.json')).toBe(true);
    for (const bad of [MANIFEST_FILE, '../outside/victim.json', 'dev/../dev/b.json', 'dev', 'dev/b', 'a/dev/b.json']) {
      await expect(sink.remove!(bad), bad).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    }
    expect(await tree(dir)).toEqual(['dev', 'dev/b.json', MANIFEST_FILE]);
    await sink.close();
  });

  it('a device folder that is a symbolic link is refused (what it points to untouched); a link at the key goes itself', async () => {
    const { dir, outside, victim, original } = await targetAndOutside();
    await symlink(outside, join(dir, 'dev'));
    const sink = createLocalSink(dir);
    // The victim is reachable through the link at an output key: refused, not removed.
    const err = await sink.remove!('dev/victim.ndjson').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect(err).toMatchObject({ code: 'SINK_PATH_ESCAPE', key: 'dev/victim.ndjson' });
    await mkdir(join(dir, 'real'));
    await symlink(victim, join(dir, 'real', 'x.json'));
    expect(await sink.remove!('real/x.json')).toBe(true);
    expect(await readFile(victim, 'utf8')).toBe(original);
    expect((await lstat(join(dir, 'dev'))).isSymbolicLink()).toBe(true);
    expect(await tree(outside)).toEqual(['victim.ndjson']);
    expect(await tree(dir)).toEqual(['dev', 'dev/victim.ndjson']);
    await sink.close();
  });

  it('also removes the temporary files of the key left by dead processes, not those of live ones', async () => {
    const { dir } = await targetAndOutside();
    await mkdir(join(dir, 'dev'));
    const dead = join(dir, 'dev', '.a.json.2147483646.0badc0de.tmp');
    const live = join(dir, 'dev', `.a.json.${process.pid}.0badc0de.tmp`);
    await writeFile(dead, '[{"partial"');
    await writeFile(live, '[');
    const sink = createLocalSink(dir);
    expect(await sink.remove!('dev/a.json')).toBe(false);
    expect(await tree(dir)).toEqual(['dev', 'dev/' + `.a.json.${process.pid}.0badc0de.tmp`]);
    await sink.close();
  });

  it('sweeps the assets folder of temporary files left by dead processes at its first putAsset, not of live ones', async () => {
    const { dir } = await targetAndOutside();
    await mkdir(join(dir, '_assets'));
    const digestOf = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    const killed = digestOf(Buffer.from('killed mid-write'));
    const dead = `.${killed}.2147483646.0badc0de.tmp`;
    const live = `.${killed}.${process.pid}.0badc0de.tmp`;
    await writeFile(join(dir, '_assets', dead), 'killed mid');
    await writeFile(join(dir, '_assets', live), 'being written');
    const body = Buffer.from('another asset');
    const sink = createLocalSink(dir);
    await sink.putAsset!(digestOf(body), 'text/plain', body);
    expect(await tree(join(dir, '_assets'))).toEqual([live, digestOf(body)].sort());
    await sink.close();
  });
});
