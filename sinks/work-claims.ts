/**
 * Work claims of a balanced run (`archive --balance <run>`): shards sharing one target say which replay each is
 * exporting, so that a shard done with its own replays can take the last ones of the others without two of them
 * exporting one replay. One object per replay and run: `_balance/<run>/<device>/<session>.taken`, holding the
 * holder's shard (`i/n`), created only when none is there; `.done` beside it once the holder's manifest line is
 * written. A claim decides who works, never what is archived: the manifest stays the record, and a claim lost or left
 * behind costs a replay exported twice at worst (the same bytes at the same key), never one left out (src/pipeline/
 * balance.ts says why).
 */
import { SinkError, describeCause } from './errors.js';
import { replayKeyBase } from './keys.js';
import type { WorkClaims } from './sink.js';
import { errorCode, TargetRefusal } from './target/refusal.js';
import type { Dir, Target } from './target/target.js';
import { removeTree } from './target/tree.js';

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

/**
 * The claims of `run` in the local target (created when first needed): every file reached through the target module,
 * so no link is followed at any component, and a FIFO or device planted at a claim is refused at once.
 */
export function localWorkClaims(target: Target, run: string): WorkClaims {
  const root = target.path;
  checkRun(run, root);
  const fail = (what: string, key: string, err: unknown, replayId?: string): SinkError => {
    const escapes = err instanceof TargetRefusal && err.escapes;
    return new SinkError(escapes ? 'SINK_PATH_ESCAPE' : 'SINK_IO', `cannot ${what} ${key}: ${describeCause(err)}`, {
      target: root,
      key,
      replayId,
      cause: err,
    });
  };
  /** Writes `text` at `key`: only when nothing is there (`exclusive`), else over it. False: something was there. */
  const write = async (key: string, text: string, exclusive: boolean, replayId: string): Promise<boolean> => {
    try {
      const handle = (await target.openFile(key, exclusive ? 'create' : 'replace'))!;
      try {
        await handle.writeFile(text);
      } finally {
        await handle.close();
      }
      return true;
    } catch (err) {
      if (exclusive && errorCode(err) === 'EEXIST') return false;
      throw fail('write the work claim', key, err, replayId);
    }
  };
  const read = async (key: string, replayId: string): Promise<string | undefined> => {
    try {
      const handle = await target.openFile(key, 'read');
      if (handle === undefined) return undefined;
      try {
        const { buffer, bytesRead } = await handle.read(Buffer.alloc(HOLDER_BYTES), 0, HOLDER_BYTES, 0);
        return buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    } catch (err) {
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
        const stat = await target.lstat(key);
        return stat?.isFile() === true ? stat.mtimeMs : undefined;
      } catch (err) {
        throw fail('read the work claim', key, err, replayId);
      }
    },
    clearOtherRuns: () => clearOtherRuns(target, run, fail),
  };
}

/**
 * Removes the claim folders of every run but `run` under `_balance/`, each walked no-follow (target/tree.ts): a link
 * there (even `_balance` itself) is never followed, so nothing outside the target is removed. Resolves how many runs'
 * claims were removed.
 */
async function clearOtherRuns(
  target: Target,
  run: string,
  fail: (what: string, key: string, err: unknown) => SinkError,
): Promise<number> {
  let folder: Dir | undefined;
  try {
    folder = await target.folder(BALANCE_DIR, false);
  } catch (err) {
    throw fail('list the work claims', BALANCE_DIR, err);
  }
  if (folder === undefined) return 0;
  let removed = 0;
  try {
    const names: string[] = [];
    for await (const entry of folder.entries())
      if (entry.name !== run && RUN_NAME.test(entry.name)) names.push(entry.name);
    for (const name of names) {
      await removeTree(folder, name).catch((err: unknown) => {
        throw fail('remove the work claims', `${BALANCE_DIR}/${name}`, err);
      });
      removed++;
    }
  } finally {
    await folder.close();
  }
  return removed;
}
