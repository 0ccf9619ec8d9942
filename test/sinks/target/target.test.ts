/**
 * The target module (sinks/target/): a key resolved beneath the root with no link followed at any component, only
 * regular files opened (a FIFO refused at once, never waited on), removal only of what it resolved. Each case runs with
 * both resolutions: through /proc/self/fd (openat's meaning, Linux) and the fallback by path with identity checks.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLocalSink } from '../../../sinks/local.js';
import { TargetRefusal } from '../../../sinks/target/refusal.js';
import { Target, type Resolution } from '../../../sinks/target/target.js';
import { filesBelow, removeTree } from '../../../sinks/target/tree.js';

let base: string;
let n = 0;

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'target-module-'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A target with `a/b/` and `a/b/file`, and an outside folder holding `secret` and `b/file`. */
async function layout(): Promise<{ root: string; outside: string }> {
  const root = join(base, `t${n}`);
  const outside = join(base, `outside${n++}`);
  await mkdir(join(root, 'a', 'b'), { recursive: true });
  await writeFile(join(root, 'a', 'b', 'file'), 'inside');
  await mkdir(join(outside, 'b'), { recursive: true });
  await writeFile(join(outside, 'secret'), 'outside');
  await writeFile(join(outside, 'b', 'file'), 'outside');
  return { root, outside };
}

async function readKey(target: Target, key: string): Promise<string | undefined> {
  const handle = await target.openFile(key, 'read');
  if (handle === undefined) return undefined;
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

const resolutions: Resolution[] = process.platform === 'linux' ? ['proc', 'path'] : ['path'];

describe.each(resolutions)('resolution %s', (resolution) => {
  const open = (root: string): Target => new Target(root, { resolution });

  test('the resolution asked for is the one used', async () => {
    const { root } = await layout();
    const target = open(root);
    expect(await readKey(target, 'a/b/file')).toBe('inside');
    expect(target.resolution).toBe(resolution);
    await target.close();
  });

  // Each place a link can be: the root's child, an intermediate folder, the final file.
  const placements = [
    {
      name: 'a linked child of the root',
      plant: (r: string, o: string) => swapForLink(join(r, 'a'), o),
      key: 'a/b/file',
    },
    {
      name: 'a linked intermediate folder',
      plant: (r: string, o: string) => swapForLink(join(r, 'a', 'b'), join(o, 'b')),
      key: 'a/b/file',
    },
    {
      name: 'a linked final file',
      plant: (r: string, o: string) => swapForLink(join(r, 'a', 'b', 'file'), join(o, 'secret')),
      key: 'a/b/file',
    },
  ];

  describe.each(placements)('$name', ({ plant, key }) => {
    test('read: refused (typed), the outside file never read', async () => {
      const { root, outside } = await layout();
      await plant(root, outside);
      const target = open(root);
      const err = await readKey(target, key).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TargetRefusal);
      expect(err).toMatchObject({ code: 'SINK_PATH_ESCAPE', kind: 'link' });
      await target.close();
    });

    test('write: refused, nothing written outside', async () => {
      const { root, outside } = await layout();
      await plant(root, outside);
      const target = open(root);
      await expect(target.openFile(key, 'replace')).rejects.toBeInstanceOf(TargetRefusal);
      await expect(target.openFile(key, 'append')).rejects.toBeInstanceOf(TargetRefusal);
      // A new name beside it: made only inside the target (a linked folder on the way refuses it).
      await target.openFile(`${key}.new`, 'create').then(
        (h) => h?.close(),
        (e: unknown) => expect(e).toBeInstanceOf(TargetRefusal),
      );
      expect(await readFile(join(outside, 'secret'), 'utf8')).toBe('outside');
      expect(await readFile(join(outside, 'b', 'file'), 'utf8')).toBe('outside');
      expect((await readdir(outside, { recursive: true })).sort()).toEqual(['b', 'b/file', 'secret']);
      await target.close();
    });

    test('list: the link is listed as a link, never walked', async () => {
      const { root, outside } = await layout();
      await plant(root, outside);
      const target = open(root);
      const keys: string[] = [];
      for await (const k of filesBelow((await target.root(false))!)) keys.push(k);
      expect(keys.some((k) => k.includes('secret'))).toBe(false);
      await target.close();
    });

    test('remove: the link goes itself, what it points to stays', async () => {
      const { root, outside } = await layout();
      await plant(root, outside);
      const target = open(root);
      const top = (await target.root(false))!;
      expect(await removeTree(top, 'a')).toBe(true);
      expect(await readdir(root)).toEqual([]);
      expect((await readdir(outside, { recursive: true })).sort()).toEqual(['b', 'b/file', 'secret']);
      await target.close();
    });
  });

  test('a FIFO at a key is refused at once for reading and writing (no thread of the pool blocked)', async () => {
    const { root } = await layout();
    execFileSync('mkfifo', [join(root, 'a', 'fifo')]);
    const target = open(root);
    // Five at once: more than the pool's four threads, any one of them blocking would hold the rest.
    const attempts = Array.from({ length: 5 }, () => target.openFile('a/fifo', 'read').catch((e: unknown) => e));
    attempts.push(target.openFile('a/fifo', 'replace').catch((e: unknown) => e));
    attempts.push(target.openFile('a/fifo', 'append').catch((e: unknown) => e));
    for (const err of await Promise.all(attempts)) {
      expect(err).toBeInstanceOf(TargetRefusal);
      expect(err).toMatchObject({ code: 'SINK_PATH_ESCAPE', kind: 'special', key: 'a/fifo' });
    }
    expect(await readKey(target, 'a/b/file')).toBe('inside');
    await target.close();
  });

  test('a folder opened stays the one opened: a swap for a link afterwards reaches nothing outside', async () => {
    const { root, outside } = await layout();
    const target = open(root);
    const b = (await target.folder('a/b', false))!;
    await rename(join(root, 'a'), join(root, 'aside'));
    await symlink(outside, join(root, 'a'));
    const err = await b.open('file', 'read').then(
      async (h) => {
        const text = await h?.readFile('utf8');
        await h?.close();
        return text;
      },
      (e: unknown) => e,
    );
    // Through the descriptor: the real folder (moved aside), or a refusal by the fallback; never the outside file.
    if (resolution === 'proc') expect(err).toBe('inside');
    else expect(err).toBeInstanceOf(TargetRefusal);
    await b.close();
    await target.close();
  });

  test('the local sink on it: an output written, hashed by the worker reading it back, read back, removed', async () => {
    const { root } = await layout();
    const sink = createLocalSink(root, { resolution, hashWorker: { fromBytes: 0, minRate: 0 } });
    const event = Buffer.from(JSON.stringify({ type: 3, timestamp: 1, data: { x: 'y'.repeat(1000) } }));
    const writer = await sink.open('dev/1', { format: 'ndjson', gzip: false });
    for (let i = 0; i < 2000; i++) await writer.write([event]);
    const done = await writer.commit();
    const bytes = await readFile(join(root, ...done.key.split('/')));
    expect(done.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(await sink.exists(done.key)).toBe(true);
    expect(await sink.remove(done.key)).toBe(true);
    expect(await sink.exists(done.key)).toBe(false);
    await sink.close();
  });

  test('keys that could leave the target are refused', async () => {
    const { root } = await layout();
    const target = open(root);
    for (const key of ['', '/a', 'a/../..', 'a//b', 'a/./b', '..', 'a\\b', 'a\0b']) {
      await expect(target.openFile(key, 'read'), key).rejects.toMatchObject({ code: 'SINK_PATH_ESCAPE' });
    }
    await target.close();
  });
});

/** Replaces `path` with a symbolic link to `to` (the original moved aside, out of the target's way). */
async function swapForLink(path: string, to: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
  await symlink(to, path);
}
