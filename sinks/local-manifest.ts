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
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { LOCK_LEFTOVER, LOCK_TOUCH_MS, takeLock } from './fold-lock.js';
import { IdTable } from './id-table.js';
import { describeCause, SinkError } from './errors.js';
import { type ManifestFile, parseManifestStream, serializeManifestEntry } from './manifest-lines.js';
import type { ManifestCompactionResult, ManifestEntry } from './sink.js';
import { errorCode as code, TargetRefusal } from './target/refusal.js';
import type { Dir, Target } from './target/target.js';
import { writeAll } from './write-ahead.js';

export const MANIFEST_FILE = 'manifest.ndjson';
export const MANIFEST_FOLDER = '_manifest';
const SNAPSHOT_FILE = 'snapshot.ndjson';
const LOCK_FILE = 'compact.lock';
const FOLDING = /^folding-\d{13}-[0-9a-f]+\.ndjson$/;
const SNAPSHOT_TEMP = /^\.snapshot-[0-9a-f]+\.tmp$/;
/**
 * The manifest is read in pieces of this size, each in a buffer of its own (not from Node's pool, not reused): a
 * catalogue build hands them over to its thread whole, and the thread that read them keeps no garbage behind.
 */
const READ_PIECE = 1 << 20;
/** Appends again to a log renamed meanwhile at most this many times (each needs another compaction at that moment). */
const APPEND_ATTEMPTS = 8;

const UNCHANGED: ManifestCompactionResult = Object.freeze({ compacted: false, entries: 0, folded: 0, removed: 0 });

/** A manifest file opened for reading, with its key (relative to the target) for errors. */
interface Opened {
  name: string;
  handle: FileHandle;
}

export class LocalManifest {
  readonly #target: Target;
  readonly #writer = randomBytes(6).toString('hex');
  #handle: Promise<FileHandle> | undefined;
  #chain: Promise<void> = Promise.resolve();
  #firstAppend = true;

  constructor(target: Target) {
    this.#target = target;
  }

  #error(what: string, name: string, err: unknown, replayId?: string): SinkError {
    if (err instanceof TargetRefusal) return this.#refused(err);
    if (err instanceof SinkError) return err;
    return new SinkError('SINK_IO', `${what}: ${describeCause(err)}`, {
      target: this.#target.path,
      key: name,
      cause: err,
      replayId,
    });
  }

  /** A manifest file that is not a regular file (a symbolic link, a FIFO, a folder) is refused: it is the run's record. */
  #refused(err: TargetRefusal): SinkError {
    const what =
      err.kind === 'link'
        ? 'is a symbolic link'
        : err.kind === 'not-folder'
          ? 'is not a folder'
          : 'is not a regular file';
    const name = err.kind === 'not-folder' ? `${err.at}/` : err.at;
    return new SinkError(
      'SINK_PATH_ESCAPE',
      `${name} in ${this.#target.path} ${what}; refusing to use it as the manifest`,
      {
        target: this.#target.path,
        key: name,
        cause: err,
      },
    );
  }

  #file(): Promise<FileHandle> {
    this.#handle ??= (async () => {
      const root = (await this.#target.root(true))!;
      const handle = await root.open(MANIFEST_FILE, 'append');
      // The log may have just been created: its folder entry is flushed.
      await root.sync().catch(async (err: unknown) => {
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
    const root = (await this.#target.root(true))!;
    const [open, now] = await Promise.all([handle.stat(), root.lstat(MANIFEST_FILE)]);
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
        await this.#appendLine(line, entry.replay_id);
      } catch (err) {
        throw this.#error('cannot append to the manifest', MANIFEST_FILE, err, entry.replay_id);
      }
    };
    const result = this.#chain.then(run);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  async #appendLine(line: Buffer, replayId: string): Promise<void> {
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
          { target: this.#target.path, key: MANIFEST_FILE, replayId },
        );
    }
  }

  /** Every entry: the snapshot, folded files still there, then the log; each replay's entries oldest first. */
  async *read(): AsyncIterable<ManifestEntry> {
    for await (const file of this.files()) yield* parseManifestStream(file.chunks, this.#target.path);
  }

  /**
   * The manifest's files as bytes, in reading order (what `read` parses): the snapshot, folded files still there, the
   * log; all opened before the first is read, closed once the last is read past (or the reading stops).
   */
  async *files(): AsyncIterable<ManifestFile> {
    let files: Opened[];
    try {
      files = await this.#openForRead();
    } catch (err) {
      throw this.#error('cannot read the manifest', MANIFEST_FILE, err);
    }
    try {
      for (const { name, handle } of files) {
        yield { key: name, chunks: fileChunks(handle) };
      }
    } finally {
      await Promise.allSettled(files.map((h) => h.handle.close()));
    }
  }

  /**
   * The manifest's files in reading order: snapshot, folded files, log. Opened log first, snapshot last: a compaction
   * running meanwhile moves lines from the log to a folding file to the snapshot, so each line is still found in one
   * of the files opened (at worst twice, which repeats a state).
   */
  async #openForRead(): Promise<Opened[]> {
    const root = await this.#target.root(false);
    if (root === undefined) return [];
    // Every handle opened, as soon as it is: one that fails after others opened closes them all.
    const opened: Opened[] = [];
    const openIn = async (dir: Dir, name: string): Promise<Opened | undefined> => {
      const handle = await dir.open(name, 'read');
      if (handle === undefined) return undefined;
      const file = { name: dir.keyOf(name), handle };
      opened.push(file);
      return file;
    };
    let folder: Dir | undefined;
    try {
      const log = await openIn(root, MANIFEST_FILE);
      folder = await root.child(MANIFEST_FOLDER, false);
      const folding: Opened[] = [];
      let snapshot: Opened | undefined;
      if (folder !== undefined) {
        for (const name of await foldingNames(folder)) {
          const file = await openIn(folder, name);
          if (file !== undefined) folding.push(file);
        }
        snapshot = await openIn(folder, SNAPSHOT_FILE);
      }
      return [...(snapshot === undefined ? [] : [snapshot]), ...folding, ...(log === undefined ? [] : [log])];
    } catch (err) {
      await Promise.allSettled(opened.map((h) => h.handle.close()));
      throw err;
    } finally {
      await folder?.close();
    }
  }

  /**
   * Folds the log into the snapshot (see the module's comment). Returns `compacted: false` when the log is empty or
   * another process holds the lock.
   */
  async compact(signal?: AbortSignal): Promise<ManifestCompactionResult> {
    let folder: Dir | undefined;
    try {
      signal?.throwIfAborted();
      const root = (await this.#target.root(true))!;
      folder = (await root.child(MANIFEST_FOLDER, true))!;
      const lock = await takeLock(folder, LOCK_FILE, `.compact-lock-${this.#writer}`);
      if (lock === undefined) return UNCHANGED;
      const touch = setInterval(() => {
        const t = new Date();
        void lock.utimes(t, t).catch(() => undefined);
      }, LOCK_TOUCH_MS);
      touch.unref();
      try {
        return await this.#compactLocked(root, folder, signal);
      } finally {
        clearInterval(touch);
        await lock.close();
        await folder.unlink(LOCK_FILE).catch(() => undefined);
      }
    } catch (err) {
      if (signal?.aborted && err === signal.reason) throw err;
      throw this.#error('cannot compact the manifest', `${MANIFEST_FOLDER}/`, err);
    } finally {
      await folder?.close();
    }
  }

  /** Moves the log into the fold folder (writers then create a new one) and drops this process's handle of it. */
  async #moveLogAside(root: Dir, folder: Dir): Promise<void> {
    // Leftovers of a compaction that died: a snapshot never renamed into place, a lock being taken.
    for await (const entry of folder.entries()) {
      if (SNAPSHOT_TEMP.test(entry.name) || LOCK_LEFTOVER.test(entry.name))
        await folder.unlink(entry.name).catch(() => undefined);
    }
    const st = await root.lstat(MANIFEST_FILE);
    if (st !== undefined) {
      if (!st.isFile()) throw root.refusal(MANIFEST_FILE, st.isSymbolicLink() ? 'link' : 'special');
      const stamp = String(Date.now()).padStart(13, '0');
      await root
        .rename(MANIFEST_FILE, folder, `folding-${stamp}-${this.#writer}.ndjson`)
        .catch((err: unknown) => (code(err) === 'ENOENT' ? undefined : Promise.reject(err)));
      await folder.sync();
      await root.sync();
    }
    // This process's own next append opens the new log: the handle is dropped between two of its appends (in their
    // chain), never under one.
    const dropped = this.#chain.then(() => this.#dropHandle());
    this.#chain = dropped.catch(() => undefined);
    await dropped;
  }

  async #compactLocked(root: Dir, folder: Dir, signal: AbortSignal | undefined): Promise<ManifestCompactionResult> {
    await this.#moveLogAside(root, folder);
    const names = await foldingNames(folder);
    if (names.length === 0) return UNCHANGED;
    const last = await this.#lastEntries(folder, names, signal);
    const entries = await this.#writeSnapshot(folder, names, last, signal);
    // Oldest first: what a crash leaves is always the newest folded files, which repeat states already last.
    let removed = 0;
    for (const name of names) {
      await folder.unlink(name);
      removed++;
    }
    await folder.sync();
    return { compacted: true, entries, folded: last.folded, removed };
  }

  /** Pass 1: where the last entry of each replay in the folded files is (file, entry ordinal). */
  async #lastEntries(folder: Dir, names: readonly string[], signal: AbortSignal | undefined): Promise<LastEntries> {
    const last: LastEntries = {
      ids: new IdTable(),
      file: new Int32Array(1024),
      ordinal: new Int32Array(1024),
      folded: 0,
    };
    for (let f = 0; f < names.length; f++) {
      let ordinal = 0;
      for await (const entry of this.#entriesOf(folder, names[f]!)) {
        const i = last.ids.set(entry.replay_id, 0);
        if (i >= last.file.length) {
          last.file = grow(last.file);
          last.ordinal = grow(last.ordinal);
        }
        last.file[i] = f;
        last.ordinal[i] = ordinal++;
        if ((++last.folded & 4095) === 0) signal?.throwIfAborted();
      }
    }
    return last;
  }

  /**
   * Pass 2 and 3, into a new snapshot renamed into place: the old snapshot's entries not folded again, then the last
   * folded entry of each replay. Resolves how many entries it holds.
   */
  async #writeSnapshot(
    folder: Dir,
    names: readonly string[],
    last: LastEntries,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    const tempName = `.snapshot-${this.#writer}.tmp`;
    const out = await folder.open(tempName, 'create');
    let entries = 0;
    try {
      const buffered = new LineBuffer(out);
      if ((await folder.lstat(SNAPSHOT_FILE)) !== undefined) {
        for await (const entry of this.#entriesOf(folder, SNAPSHOT_FILE)) {
          if (last.ids.indexOf(entry.replay_id) >= 0) continue;
          await buffered.write(serializeManifestEntry(entry));
          entries++;
        }
      }
      for (let f = 0; f < names.length; f++) {
        let ordinal = 0;
        for await (const entry of this.#entriesOf(folder, names[f]!)) {
          const i = last.ids.indexOf(entry.replay_id);
          if (last.file[i] === f && last.ordinal[i] === ordinal) {
            await buffered.write(serializeManifestEntry(entry));
            entries++;
          }
          if ((++ordinal & 4095) === 0) signal?.throwIfAborted();
        }
      }
      await buffered.flush();
      await out.sync();
      // Nothing is renamed into place once stopped: the folded files stay, read as before.
      signal?.throwIfAborted();
    } catch (err) {
      await out.close();
      await folder.unlink(tempName).catch(() => undefined);
      throw err;
    }
    await out.close();
    await folder.rename(tempName, folder, SNAPSHOT_FILE);
    await folder.sync();
    return entries;
  }

  async *#entriesOf(folder: Dir, name: string): AsyncIterable<ManifestEntry> {
    const handle = await folder.open(name, 'read');
    if (handle === undefined) return;
    try {
      yield* parseManifestStream(
        handle.createReadStream({ autoClose: false }) as AsyncIterable<Buffer>,
        this.#target.path,
      );
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
    const add = async (dir: Dir, name: string): Promise<void> => {
      const st = await dir.lstat(name);
      // Milliseconds with a fraction: the nanoseconds the file system keeps, as far as a double holds them.
      if (st !== undefined) parts.push(`${name}:${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`);
    };
    try {
      const root = await this.#target.root(false);
      if (root === undefined) return 'local';
      await add(root, MANIFEST_FILE);
      const folder = await root.child(MANIFEST_FOLDER, false);
      try {
        if (folder !== undefined) {
          for (const name of await foldingNames(folder)) await add(folder, name);
          await add(folder, SNAPSHOT_FILE);
        }
      } finally {
        await folder?.close();
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

/** A file read from where its handle is to its end, in pieces of a fresh buffer each (`ManifestFile.chunks`). */
async function* fileChunks(handle: FileHandle): AsyncIterable<Buffer> {
  for (;;) {
    const piece = Buffer.allocUnsafeSlow(READ_PIECE);
    const { bytesRead } = await handle.read(piece, 0, READ_PIECE, null);
    if (bytesRead === 0) return;
    yield bytesRead === READ_PIECE ? piece : piece.subarray(0, bytesRead);
  }
}

/** Where the last entry of each replay of the folded files is. */
interface LastEntries {
  ids: IdTable;
  file: Int32Array<ArrayBuffer>;
  ordinal: Int32Array<ArrayBuffer>;
  folded: number;
}

/** The folded files waiting in `_manifest/`, oldest first. */
async function foldingNames(folder: Dir): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of folder.entries()) if (FOLDING.test(entry.name)) names.push(entry.name);
  return names.sort();
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
