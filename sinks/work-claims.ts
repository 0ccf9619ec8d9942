/**
 * Work claims of a balanced run (`archive --balance <run>`): shards sharing one target say which replay each is
 * exporting, so that a shard done with its own replays can take the last ones of the others without two of them
 * exporting one replay. One object per replay and run: `_balance/<run>/<device>/<session>.taken`, holding the
 * holder's shard (`i/n`), created only when none is there; `.done` beside it once the holder's manifest line is
 * written. A claim decides who works, never what is archived: the manifest stays the record, and a claim lost or left
 * behind costs a replay exported twice at worst (the same bytes at the same key), never one left out (src/pipeline/
 * balance.ts says why).
 */
import { constants } from 'node:fs';
import { lstat, open as openFile, readdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SinkError, describeCause } from './errors.js';
import { replayKeyBase } from './keys.js';
import { makeFolders, NotAFolderError } from './local-folders.js';
import type { WorkClaims } from './sink.js';
import { isSymlinkRefusal, O_NOFOLLOW } from './temp-file.js';

/** The folder of every run's claims, at the top of the target. */
export const BALANCE_DIR = '_balance';

/** A run's name: what every shard of one run is given alike (a Job's name, a date). */
export const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The key of `replayId`'s claim in `run` (`kind` `taken`) or of its end (`done`), relative to the target. */
export function workClaimKey(run: string, replayId: string, kind: 'taken' | 'done'): string {
  return `${BALANCE_DIR}/${run}/${replayKeyBase(replayId)}.${kind}`;
}

/** Whether `key` (relative to the target) is a work claim's object. */
export function isWorkClaimKey(key: string): boolean {
  const parts = key.split('/');
  return (
    parts.length === 4 && parts[0] === BALANCE_DIR && RUN_NAME.test(parts[1]!) && /\.(taken|done)$/.test(parts[3]!)
  );
}

export function checkRun(run: string, target: string): void {
  if (!RUN_NAME.test(run))
    throw new SinkError(
      'SINK_CONFIG',
      `a run's name must be 1–64 letters, digits, '.', '_' or '-', got ${JSON.stringify(run.slice(0, 100))}`,
      { target },
    );
}

export const HOLDER_BYTES = 64;

/**
 * A claim's holder as stored (its first word: the shard; an S3 claim adds a nonce after it); anything else (a foreign
 * or torn file) reads as someone else's.
 */
export function holderOf(text: string): string {
  const holder = text.trim().split(/\s/)[0]!.slice(0, HOLDER_BYTES);
  return holder === '' ? '?' : holder;
}

/** The claims of `run` in the local folder `root` (created when first needed; links are never followed). */
export function localWorkClaims(
  root: string,
  run: string,
  pathOf: (key: string) => string,
  ensureRoot: () => Promise<void>,
): WorkClaims {
  checkRun(run, root);
  const fail = (what: string, key: string, err: unknown, replayId?: string): SinkError => {
    const escape = (err instanceof NotAFolderError && err.kind === 'symlink') || isSymlinkRefusal(err);
    return new SinkError(escape ? 'SINK_PATH_ESCAPE' : 'SINK_IO', `cannot ${what} ${key}: ${describeCause(err)}`, {
      target: root,
      key,
      replayId,
      cause: err,
    });
  };
  /** Writes `text` at `key`: only when nothing is there (`exclusive`), else over it. False: something was there. */
  const write = async (key: string, text: string, exclusive: boolean, replayId: string): Promise<boolean> => {
    const path = pathOf(key);
    try {
      await ensureRoot();
      await makeFolders(root, dirname(path));
      const flags =
        constants.O_WRONLY | constants.O_CREAT | O_NOFOLLOW | (exclusive ? constants.O_EXCL : constants.O_TRUNC);
      const handle = await openFile(path, flags, 0o644);
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      return true;
    } catch (err) {
      if (exclusive && (err as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fail('write the work claim', key, err, replayId);
    }
  };
  const read = async (key: string, replayId: string): Promise<string | undefined> => {
    try {
      const handle = await openFile(pathOf(key), constants.O_RDONLY | O_NOFOLLOW);
      try {
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(HOLDER_BYTES), 0, HOLDER_BYTES, 0);
        return buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw fail('read the work claim', key, err, replayId);
    }
  };
  return {
    async take(replayId, holder) {
      const key = workClaimKey(run, replayId, 'taken');
      if (await write(key, holder, true, replayId)) return undefined;
      // A claim being written reads empty for a moment: someone holds it all the same.
      return holderOf((await read(key, replayId)) ?? '');
    },
    async retake(replayId, holder) {
      await write(workClaimKey(run, replayId, 'taken'), holder, false, replayId);
    },
    async finish(replayId) {
      await write(workClaimKey(run, replayId, 'done'), '', false, replayId);
    },
    async finishedAt(replayId) {
      const key = workClaimKey(run, replayId, 'done');
      try {
        const stat = await lstat(pathOf(key));
        return stat.isFile() ? stat.mtimeMs : undefined;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw fail('read the work claim', key, err, replayId);
      }
    },
    async clearOtherRuns() {
      const folder = pathOf(BALANCE_DIR);
      let names: string[];
      try {
        names = await readdir(folder);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR')
          return 0;
        throw fail('list the work claims', BALANCE_DIR, err);
      }
      let removed = 0;
      for (const name of names) {
        if (name === run || !RUN_NAME.test(name)) continue;
        // `rm` removes a link itself, never what it points to.
        await rm(pathOf(`${BALANCE_DIR}/${name}`), { recursive: true, force: true }).catch((err: unknown) => {
          throw fail('remove the work claims', `${BALANCE_DIR}/${name}`, err);
        });
        removed++;
      }
      return removed;
    },
  };
}
