/**
 * The lock of a local manifest's fold (`_manifest/compact.lock`): one fold at a time, and none left behind by a
 * process that died. The lock file names its holder — process id, host, and, on Linux, the boot, the pid namespace
 * and the process's start time — so that a later run on the same host takes over at once a lock whose holder is gone
 * (no such process, or another process that now has its id: a different start time). A lock of another host (a
 * shared file system) cannot be checked that way: it is taken over when it has not been touched for `LOCK_STALE_MS`
 * (its holder touches it every minute while folding).
 */
import type { FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { procFile, procLink } from './process-files.js';
import { errorCode as code } from './target/refusal.js';
import type { Dir } from './target/target.js';

/** A lock of another host not touched for this long belongs to a fold that died: it is taken over. */
const LOCK_STALE_MS = 10 * 60_000;
/** How often a holder touches its lock. */
export const LOCK_TOUCH_MS = 60_000;

/** A lock file is one short line; more is not a lock this code wrote. */
const MAX_LOCK_BYTES = 4096;

/** Who holds a lock. `boot`, `pidns` and `start` are empty where /proc does not tell them. */
export interface LockHolder {
  pid: number;
  host: string;
  /** The kernel's boot id: a pid of another boot names no process of this one. */
  boot: string;
  /** The pid namespace (containers on one kernel number their processes apart). */
  pidns: string;
  /** The process's start time, in clock ticks since boot (`/proc/<pid>/stat`, field 22). */
  start: string;
}

/**
 * A process's state and start time from `/proc/<pid>/stat` (fields 3 and 22, after the command name, which may hold
 * spaces and parentheses); empty strings when unknown.
 */
async function procStat(pid: number | 'self'): Promise<{ state: string; start: string }> {
  const stat = await procFile(`/proc/${pid}/stat`);
  if (stat === '') return { state: '', start: '' };
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', start: fields[19] ?? '' };
}

let self: Promise<LockHolder> | undefined;

/** This process, as a lock names it. */
export function thisProcess(): Promise<LockHolder> {
  self ??= (async () => ({
    pid: process.pid,
    host: hostname(),
    boot: (await procFile('/proc/sys/kernel/random/boot_id')).trim(),
    pidns: await procLink('/proc/self/ns/pid'),
    start: (await procStat('self')).start,
  }))();
  return self;
}

/** The holder a lock file names; undefined when it names none this code can read (an older format, a torn write). */
function parseHolder(text: string): LockHolder | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (v === null || typeof v !== 'object') return undefined;
  const h = v as Record<string, unknown>;
  if (!Number.isSafeInteger(h.pid) || (h.pid as number) <= 0) return undefined;
  const strings = [h.host, h.boot, h.pidns, h.start];
  if (!strings.every((s) => typeof s === 'string') || h.host === '') return undefined;
  return {
    pid: h.pid as number,
    host: h.host as string,
    boot: h.boot as string,
    pidns: h.pidns as string,
    start: h.start as string,
  };
}

/**
 * Whether `holder` is known to be gone: it is of this host (same name, boot and pid namespace) and no process has its
 * id, or the process that has it started at another time (its id was reused) or is a zombie. False when that cannot
 * be known.
 */
async function holderGone(holder: LockHolder): Promise<boolean> {
  const me = await thisProcess();
  if (holder.host !== me.host || holder.boot !== me.boot || holder.pidns !== me.pidns) return false;
  if (holder.pid === me.pid) return holder.start !== me.start;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    // EPERM: a process of another user has the id.
    if (code(err) === 'ESRCH') return true;
  }
  if (holder.start === '') return false;
  const now = await procStat(holder.pid);
  // A zombie (killed, not yet reaped by its parent) holds nothing either.
  return now.start !== '' && (now.start !== holder.start || now.state === 'Z');
}

/** The lock file `name` in `folder` and what it names (undefined when it is not there). */
async function readLock(
  folder: Dir,
  name: string,
): Promise<{ ino: number; dev: number; mtimeMs: number; holder: LockHolder | undefined } | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await folder.open(name, 'read');
  } catch {
    // A symbolic link, a FIFO or something unreadable at the name: judged by its age alone.
    const st = await folder.lstat(name).catch(() => undefined);
    return st === undefined ? undefined : { ino: st.ino, dev: st.dev, mtimeMs: st.mtimeMs, holder: undefined };
  }
  if (handle === undefined) return undefined;
  try {
    const st = await handle.stat();
    const buf = Buffer.alloc(Math.min(MAX_LOCK_BYTES, Math.max(0, st.size)));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    return {
      ino: st.ino,
      dev: st.dev,
      mtimeMs: st.mtimeMs,
      holder: parseHolder(buf.subarray(0, bytesRead).toString('utf8')),
    };
  } finally {
    await handle.close();
  }
}

/**
 * What a process taking the lock leaves when it is killed at the wrong moment: its lock being written (`.new`) or a
 * dead lock being moved aside (`.aside`; `.stale-lock-*` of earlier versions). The holder of the lock removes them.
 */
export const LOCK_LEFTOVER = /^(\.compact-lock-[0-9a-f]+\.(new|aside)|\.stale-lock-[0-9a-f]+)$/;

/** Errors of `link` on a file system without hard links. */
const NO_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates the lock `name` in `folder` holding `text`: written to `temp` first, then linked to `name` (fails if it
 * exists), so the lock is never seen empty or torn, even by a kill between its creation and its write. Undefined when
 * a lock is there. Where hard links are not supported, the lock is created and written in place.
 */
async function createLock(folder: Dir, name: string, temp: string, text: string): Promise<FileHandle | undefined> {
  const handle = await folder.open(temp, 'create');
  let linked = false;
  try {
    await handle.writeFile(text);
    try {
      await folder.link(temp, folder, name);
      linked = true;
    } catch (err) {
      // ENOENT: the holder removed `temp` as a leftover: a lock is held.
      if (code(err) === 'EEXIST' || code(err) === 'ENOENT') return undefined;
      if (!NO_LINKS.has(code(err) ?? '')) throw err;
    }
  } finally {
    if (!linked) await handle.close();
    await folder.unlink(temp).catch(() => undefined);
  }
  if (linked) return handle;
  let direct: FileHandle;
  try {
    direct = await folder.open(name, 'create');
  } catch (err) {
    if (code(err) === 'EEXIST') return undefined;
    throw err;
  }
  await direct.writeFile(text).catch(async (err: unknown) => {
    // A full disk: the lock is not taken (nor left behind to go stale).
    await direct.close();
    await folder.unlink(name).catch(() => undefined);
    throw err;
  });
  return direct;
}

/**
 * Takes the lock `name` in `folder` (`privatePrefix`: a name of this process's own in the same folder, for its
 * temporary names); undefined when a live holder has it. A lock whose holder is gone (`holderGone`), or that is stale,
 * is taken over: renamed aside first — of several processes finding it dead, one takes it over — and checked to be the
 * very file judged (a lock another process took meanwhile is put back).
 */
export async function takeLock(folder: Dir, name: string, privatePrefix: string): Promise<FileHandle | undefined> {
  const text = `${JSON.stringify({ ...(await thisProcess()), at: new Date().toISOString() })}\n`;
  const aside = `${privatePrefix}.aside`;
  for (let attempt = 0; attempt < 2; attempt++) {
    const handle = await createLock(folder, name, `${privatePrefix}.new`, text);
    if (handle !== undefined) return handle;
    const lock = await readLock(folder, name);
    if (lock === undefined) continue;
    const dead = lock.holder !== undefined && (await holderGone(lock.holder));
    if (!dead && Date.now() - lock.mtimeMs < LOCK_STALE_MS) return undefined;
    try {
      await folder.rename(name, folder, aside);
    } catch (err) {
      if (code(err) === 'ENOENT') continue;
      throw err;
    }
    const moved = await folder.lstat(aside).catch(() => undefined);
    if (moved !== undefined && (moved.ino !== lock.ino || moved.dev !== lock.dev)) {
      // Another process took the lock between our look and the rename: its lock goes back (unless a third has one).
      await folder.link(aside, folder, name).catch(() => undefined);
      await folder.unlink(aside).catch(() => undefined);
      return undefined;
    }
    await folder.unlink(aside);
  }
  return undefined;
}
