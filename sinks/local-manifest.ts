/**
 * The manifest of a local target: the log `<dir>/manifest.ndjson` (one line per outcome, appended by any number of
 * processes), and, once compacted, the snapshot `<dir>/_manifest/snapshot.ndjson` (the latest line of every replay).
 * The state of a replay is its last line in `snapshot.ndjson`, then `_manifest/folding-*.ndjson` (name order), then
 * `manifest.ndjson`: `cat _manifest/snapshot.ndjson manifest.ndjson | jq -s 'group_by(.replay_id) | map(last)'`.
 *
 * A compaction (one process at a time: `_manifest/compact.lock`, `fold-lock.ts`) renames the log to `_manifest/folding-<stamp>-<w>`
 * (writers then create a new log), writes the new snapshot to a temporary file, renames it into place, and deletes the
 * folded file. A writer that finds, after appending, that its open log was renamed appends its line again to the new
 * log: a line is never only in a file already folded without it. A crash at any step leaves files a reader merges to
 * the same state (a folded file read again after the snapshot holding it repeats entries that are already last).
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { LOCK_LEFTOVER, LOCK_TOUCH_MS, takeLock } from './fold-lock.js';
import { IdTable } from './id-table.js';
import { describeCause, SinkError } from './errors.js';
import { parseManifestStream, serializeManifestEntry } from './manifest-lines.js';
import type { ManifestCompactionResult, ManifestEntry } from './sink.js';
import { fsyncDir, isSymlinkRefusal, O_NOFOLLOW } from './temp-file.js';
import { writeAll } from './write-ahead.js';

export const MANIFEST_FILE = 'manifest.ndjson';
export const MANIFEST_FOLDER = '_manifest';
const SNAPSHOT_FILE = 'snapshot.ndjson';
const LOCK_FILE = 'compact.lock';
const FOLDING = /^folding-\d{13}-[0-9a-f]+\.ndjson$/;
const SNAPSHOT_TEMP = /^\.snapshot-[0-9a-f]+\.tmp$/;
/** Appends again to a log renamed meanwhile at most this many times (each needs another compaction at that moment). */
const APPEND_ATTEMPTS = 8;

/** The log is opened for appending (O_APPEND: each line one write) and reading back its last byte. */
const APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW;
/** O_NONBLOCK: a FIFO planted at the name does not block the open (it is then refused as not a file). */
const READ = constants.O_RDONLY | O_NOFOLLOW | (constants.O_NONBLOCK ?? 0);
const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

export class LocalManifest {
  readonly #root: string;
  readonly #ensureRoot: () => Promise<void>;
  readonly #log: string;
  readonly #folder: string;
  readonly #writer = randomBytes(6).toString('hex');
  #handle: Promise<FileHandle> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #firstAppend = true;

  constructor(root: string, ensureRoot: () => Promise<void>) {
    this.#root = root;
    this.#ensureRoot = ensureRoot;
    this.#log = join(root, MANIFEST_FILE);
    this.#folder = join(root, MANIFEST_FOLDER);
  }

  #error(what: string, name: string, err: unknown, replayId?: string): SinkError {
    if (err instanceof SinkError) return err;
    return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, {
      target: this.#root,
      key: name,
      cause: err,
      ...(replayId === undefined ? {} : { replayId }),
    });
  }

  /** A manifest file that is not a regular file (a symbolic link, a FIFO, a folder) is refused: it is the run's record. */
  #refused(name: string, what: string, cause?: unknown): SinkError {
    return new SinkError('SINK_PATH_ESCAPE', `${name} in ${this.#root} ${what}; refusing to use it as the manifest`, {
      target: this.#root,
      key: name,
      ...(cause === undefined ? {} : { cause }),
    });
  }

  /** Opens a manifest file (`name` relative to the target, for errors); never through a symbolic link. */
  async #open(path: string, name: string, flags: number): Promise<FileHandle> {
    let handle: FileHandle;
    try {
      handle = await open(path, flags, 0o644);
    } catch (err) {
      if (isSymlinkRefusal(err)) throw this.#refused(name, 'is a symbolic link', err);
      throw err;
    }
    const st = await handle.stat().catch(async (err: unknown) => {
      await handle.close();
      throw err;
    });
    if (!st.isFile()) {
      await handle.close();
      throw this.#refused(name, 'is not a regular file');
    }
    return handle;
  }

  /** Whether `_manifest/` exists as a real folder (a symbolic link or a file there is refused). */
  async #hasFolder(): Promise<boolean> {
    try {
      const st = await lstat(this.#folder);
      if (st.isDirectory()) return true;
      throw this.#refused(`${MANIFEST_FOLDER}/`, st.isSymbolicLink() ? 'is a symbolic link' : 'is not a folder');
    } catch (err) {
      if (code(err) === 'ENOENT') return false;
      throw err;
    }
  }

  #file(): Promise<FileHandle> {
    this.#handle ??= (async () => {
      await this.#ensureRoot();
      const handle = await this.#open(this.#log, MANIFEST_FILE, APPEND);
      // The log may have just been created: its folder entry is flushed.
      await fsyncDir(this.#root).catch(async (err: unknown) => {
        await handle.close();
        throw err;
      });
      return handle;
    })();
    this.#handle.catch(() => {
      this.#handle = undefined;
    });
    return this.#handle;
  }

  /** Whether the open log is no longer the one at its name (a compaction renamed it). */
  async #renamed(handle: FileHandle): Promise<boolean> {
    const [open, now] = await Promise.all([
      handle.stat(),
      lstat(this.#log).catch((err: unknown) => (code(err) === 'ENOENT' ? undefined : Promise.reject(err))),
    ]);
    return now === undefined || now.ino !== open.ino || now.dev !== open.dev;
  }

  async #dropHandle(): Promise<void> {
    const handle = await this.#handle?.catch(() => undefined);
    this.#handle = undefined;
    await handle?.close();
  }

  append(entry: ManifestEntry): Promise<void> {
    const line = serializeManifestEntry(entry);
    const run = async (): Promise<void> => {
      try {
        for (let attempt = 1; ; attempt++) {
          const handle = await this.#file();
          let bytes = line;
          if (this.#firstAppend) {
            // A run killed mid-append may have left a line without `\n`: end it, so that this line does not merge into it.
            if (await endsInTornLine(handle)) bytes = Buffer.concat([Buffer.from('\n'), line]);
            this.#firstAppend = false;
          }
          // One write of the whole line with O_APPEND: lines of several processes never interleave.
          await writeAll(handle, bytes);
          await handle.datasync();
          if (!(await this.#renamed(handle))) return;
          // A compaction renamed the log before or while this line went in: the line goes to the new log as well.
          await this.#dropHandle();
          if (attempt === APPEND_ATTEMPTS)
            throw new SinkError(
              'SINK_IO',
              `cannot append to the manifest: the log was renamed ${attempt} times while appending`,
              { target: this.#root, key: MANIFEST_FILE, replayId: entry.replay_id },
            );
        }
      } catch (err) {
        throw this.#error('cannot append to the manifest', MANIFEST_FILE, err, entry.replay_id);
      }
    };
    const result = this.#chain.then(run);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  /** Every entry: the snapshot, folded files still there, then the log; each replay's entries oldest first. */
  async *read(): AsyncIterable<ManifestEntry> {
    // Opened log first, snapshot last: a compaction running meanwhile moves lines from the log to a folding file to
    // the snapshot, so each line is still found in one of the files opened (at worst twice, which repeats a state).
    const handles: Array<{ name: string; handle: FileHandle }> = [];
    // Every handle opened, as soon as it is: one that fails after others opened closes them all.
    const opened: FileHandle[] = [];
    const openForRead = async (path: string, name: string): Promise<FileHandle | undefined> => {
      const handle = await this.#openForRead(path, name);
      if (handle !== undefined) opened.push(handle);
      return handle;
    };
    try {
      const log = await openForRead(this.#log, MANIFEST_FILE);
      const folding: Array<{ name: string; handle: FileHandle }> = [];
      if (await this.#hasFolder()) {
        for (const name of await this.#foldingNames()) {
          const handle = await openForRead(join(this.#folder, name), `${MANIFEST_FOLDER}/${name}`);
          if (handle !== undefined) folding.push({ name: `${MANIFEST_FOLDER}/${name}`, handle });
        }
      }
      const snapshot = (await this.#hasFolder())
        ? await openForRead(join(this.#folder, SNAPSHOT_FILE), `${MANIFEST_FOLDER}/${SNAPSHOT_FILE}`)
        : undefined;
      if (snapshot !== undefined) handles.push({ name: `${MANIFEST_FOLDER}/${SNAPSHOT_FILE}`, handle: snapshot });
      handles.push(...folding);
      if (log !== undefined) handles.push({ name: MANIFEST_FILE, handle: log });
    } catch (err) {
      await Promise.allSettled(opened.map((h) => h.close()));
      throw this.#error('cannot read the manifest', MANIFEST_FILE, err);
    }
    try {
      for (const { handle } of handles) {
        yield* parseManifestStream(handle.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>, this.#root);
      }
    } finally {
      await Promise.allSettled(handles.map((h) => h.handle.close()));
    }
  }

  async #openForRead(path: string, name: string): Promise<FileHandle | undefined> {
    try {
      return await this.#open(path, name, READ);
    } catch (err) {
      if (code(err) === 'ENOENT') return undefined;
      throw err;
    }
  }

  async #foldingNames(): Promise<string[]> {
    const names = (await readdir(this.#folder)).filter((n) => FOLDING.test(n));
    return names.sort();
  }

  /**
   * Folds the log into the snapshot (see the module's comment). Returns `compacted: false` when the log is empty or
   * another process holds the lock.
   */
  async compact(): Promise<ManifestCompactionResult> {
    const unchanged = { compacted: false, entries: 0, folded: 0, removed: 0 };
    try {
      await this.#ensureRoot();
      if (!(await this.#hasFolder())) {
        await mkdir(this.#folder).catch((err: unknown) => (code(err) === 'EEXIST' ? undefined : Promise.reject(err)));
        if (!(await this.#hasFolder())) return unchanged;
      }
      const lock = await this.#lock();
      if (lock === undefined) return unchanged;
      const touch = setInterval(() => {
        const t = new Date();
        void lock.utimes(t, t).catch(() => undefined);
      }, LOCK_TOUCH_MS);
      touch.unref();
      try {
        return await this.#compactLocked();
      } finally {
        clearInterval(touch);
        await lock.close();
        await unlink(join(this.#folder, LOCK_FILE)).catch(() => undefined);
      }
    } catch (err) {
      throw this.#error('cannot compact the manifest', `${MANIFEST_FOLDER}/`, err);
    }
  }

  /**
   * Takes the compaction lock; undefined when a live compaction holds it. A lock whose holder is gone (a process of
   * this host that died) or that is stale (another host's, untouched for 10 minutes) is taken over.
   */
  #lock(): Promise<FileHandle | undefined> {
    return takeLock(join(this.#folder, LOCK_FILE), join(this.#folder, `.compact-lock-${this.#writer}`));
  }

  async #compactLocked(): Promise<ManifestCompactionResult> {
    // Leftovers of a compaction that died: a snapshot never renamed into place, a lock being taken.
    for (const name of await readdir(this.#folder)) {
      if (SNAPSHOT_TEMP.test(name) || LOCK_LEFTOVER.test(name))
        await unlink(join(this.#folder, name)).catch(() => undefined);
    }
    try {
      const st = await lstat(this.#log);
      if (!st.isFile()) throw this.#refused(MANIFEST_FILE, 'is not a regular file');
      const stamp = String(Date.now()).padStart(13, '0');
      await rename(this.#log, join(this.#folder, `folding-${stamp}-${this.#writer}.ndjson`));
      await fsyncDir(this.#folder);
      await fsyncDir(this.#root);
    } catch (err) {
      if (code(err) !== 'ENOENT') throw err;
    }
    // This process's own next append opens the new log: the handle is dropped between two of its appends (in their
    // chain), never under one.
    const dropped = this.#chain.then(() => this.#dropHandle());
    this.#chain = dropped.catch(() => undefined);
    await dropped;
    const names = await this.#foldingNames();
    if (names.length === 0) return { compacted: false, entries: 0, folded: 0, removed: 0 };

    // Pass 1: where the last entry of each replay in the folded files is (file, entry ordinal).
    const ids = new IdTable();
    let lastFile = new Int32Array(1024);
    let lastOrdinal = new Int32Array(1024);
    let folded = 0;
    for (let f = 0; f < names.length; f++) {
      let ordinal = 0;
      for await (const entry of this.#entriesOf(names[f]!)) {
        const i = ids.set(entry.replay_id, 0);
        if (i >= lastFile.length) {
          lastFile = grow(lastFile);
          lastOrdinal = grow(lastOrdinal);
        }
        lastFile[i] = f;
        lastOrdinal[i] = ordinal++;
        folded++;
      }
    }

    // Pass 2 and 3: the old snapshot's entries not folded again, then the last folded entry of each replay.
    const tempName = `.snapshot-${this.#writer}.tmp`;
    const tempPath = join(this.#folder, tempName);
    const out = await open(tempPath, CREATE, 0o644);
    let entries = 0;
    try {
      const buffered = new LineBuffer(out);
      if (await this.#exists(SNAPSHOT_FILE)) {
        for await (const entry of this.#entriesOf(SNAPSHOT_FILE)) {
          if (ids.indexOf(entry.replay_id) >= 0) continue;
          await buffered.write(serializeManifestEntry(entry));
          entries++;
        }
      }
      for (let f = 0; f < names.length; f++) {
        let ordinal = 0;
        for await (const entry of this.#entriesOf(names[f]!)) {
          const i = ids.indexOf(entry.replay_id);
          if (lastFile[i] === f && lastOrdinal[i] === ordinal) {
            await buffered.write(serializeManifestEntry(entry));
            entries++;
          }
          ordinal++;
        }
      }
      await buffered.flush();
      await out.sync();
    } catch (err) {
      await out.close();
      await unlink(tempPath).catch(() => undefined);
      throw err;
    }
    await out.close();
    await rename(tempPath, join(this.#folder, SNAPSHOT_FILE));
    await fsyncDir(this.#folder);
    // Oldest first: what a crash leaves is always the newest folded files, which repeat states already last.
    let removed = 0;
    for (const name of names) {
      await unlink(join(this.#folder, name));
      removed++;
    }
    await fsyncDir(this.#folder);
    return { compacted: true, entries, folded, removed };
  }

  async #exists(name: string): Promise<boolean> {
    return (await lstat(join(this.#folder, name)).catch(() => undefined)) !== undefined;
  }

  async *#entriesOf(name: string): AsyncIterable<ManifestEntry> {
    const handle = await this.#open(join(this.#folder, name), `${MANIFEST_FOLDER}/${name}`, READ);
    try {
      yield* parseManifestStream(handle.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>, this.#root);
    } finally {
      await handle.close();
    }
  }

  /**
   * The identity, size and modification time of each manifest file (the log, folded files, the snapshot), never
   * through a link: any append or fold changes it.
   */
  async stamp(): Promise<string> {
    const parts: string[] = [];
    const add = async (path: string, name: string): Promise<void> => {
      const st = await lstat(path, { bigint: true }).catch((err: unknown) =>
        code(err) === 'ENOENT' ? undefined : Promise.reject(err),
      );
      if (st !== undefined) parts.push(`${name}:${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`);
    };
    try {
      await add(this.#log, MANIFEST_FILE);
      if (await this.#hasFolder()) {
        for (const name of await this.#foldingNames()) await add(join(this.#folder, name), name);
        await add(join(this.#folder, SNAPSHOT_FILE), SNAPSHOT_FILE);
      }
    } catch (err) {
      throw this.#error('cannot read the manifest', MANIFEST_FILE, err);
    }
    return `local ${parts.join(' ')}`;
  }

  async close(): Promise<void> {
    await this.#chain;
    await this.#dropHandle();
  }
}

function grow(a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/** Lines gathered into ~1 MiB writes. */
class LineBuffer {
  #parts: Buffer[] = [];
  #bytes = 0;
  constructor(private readonly out: FileHandle) {}
  async write(line: Buffer): Promise<void> {
    this.#parts.push(line);
    this.#bytes += line.length;
    if (this.#bytes >= 1 << 20) await this.flush();
  }
  async flush(): Promise<void> {
    if (this.#bytes === 0) return;
    await writeAll(this.out, Buffer.concat(this.#parts, this.#bytes));
    this.#parts = [];
    this.#bytes = 0;
  }
}

/** Checks of a log end that looks torn, and the pause between them (only on a process's first append). */
const TORN_CHECKS = 4;
const TORN_CHECK_PAUSE_MS = 25;
const TORN_MAX_LOOKS = 40;

/**
 * Whether the log ends inside a line that no process is still writing (a writer killed mid-append). A line being
 * appended by another process at this moment also looks unfinished — its size grows page by page — so a missing
 * final `\n` only counts once the size has stopped changing; otherwise this process would add a blank line.
 */
async function endsInTornLine(manifest: FileHandle): Promise<boolean> {
  let size = (await manifest.stat()).size;
  let stable = 1;
  for (let look = 0; look < TORN_MAX_LOOKS; look++) {
    if (size === 0 || (await endsWithNewline(manifest, size))) return false;
    if (stable === TORN_CHECKS) return true;
    await delay(TORN_CHECK_PAUSE_MS);
    const now = (await manifest.stat()).size;
    // Another process is appending: look at the new end afresh.
    stable = now === size ? stable + 1 : 1;
    size = now;
  }
  // Busy with other writers all along: leave it (a reader recovers an entry glued to a torn fragment).
  return false;
}

async function endsWithNewline(manifest: FileHandle, size: number): Promise<boolean> {
  const buf = Buffer.alloc(1);
  await manifest.read(buf, 0, 1, size - 1);
  return buf[0] === 0x0a;
}
