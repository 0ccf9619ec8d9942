/**
 * The one contract of the built-in stores — a local folder (local.ts) and an S3 prefix (s3.ts) — that `openSink`,
 * `createLocalSink` and `createS3Sink` give and `openArchive` opens: every member of `Sink`, none optional, and the
 * reading back an archive needs. A caller's own `Sink` may leave members out (`archiveOfSink` checks them); a
 * built-in store never does, so no entry learns at run time that a member it needs is missing.
 */
import type { Readable } from 'node:stream';
import type { ManifestBytes } from './manifest-lines.js';
import type { Sink } from './sink.js';

export interface Store extends Required<Sink> {
  /** The stored object at `key` (relative to the target), streamed; undefined when there is none. */
  read(key: string): Promise<Readable | undefined>;
  /** The manifest as the bytes of its files, in reading order (what `readManifest` parses). */
  readManifestBytes(): ManifestBytes;
  /** Whether the target holds a manifest (asked before a reader opens it: creates nothing). */
  hasManifest(): Promise<boolean>;
  /**
   * Whether `storedKeys` costs far less than an `exists` per key (S3: 1,000 keys a request against a HEAD each), so
   * that a resume lists once instead of asking per archived replay. Local: false (a look per replay is cheap).
   */
  readonly listsInBulk: boolean;
}

const stores = new WeakSet<object>();

/** Marks `store` as a built-in store (`isStore`). */
export function branded<T extends Store>(store: T): T {
  stores.add(store);
  return store;
}

/** Whether `sink` is a built-in store (one `openSink`, `createLocalSink` or `createS3Sink` made). */
export function isStore(sink: Sink): sink is Store {
  return stores.has(sink);
}
