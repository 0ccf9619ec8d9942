/**
 * Captured assets (`--capture-assets`): the stylesheets, fonts and images a replay references, stored once per
 * archive under `_assets/<sha256>` (content-addressed). The folder starts with `_`, a segment no replay key can start
 * with (keys.ts): a device folder named `assets` is a real possibility, `_assets` is not.
 *
 * The `html` format embeds the assets its replay references at the end of the page (after the events), as base64 in
 * non-executable `<script type="text/plain">` blocks, with one JSON block mapping each URL to its digest and each
 * digest to its content type; the player rebuilds the recorded page with them instead of the network.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { SinkError } from './errors.js';

/** The folder of the assets, relative to the target. */
export const ASSETS_DIR = '_assets';

const DIGEST = /^[0-9a-f]{64}$/;

/** Whether `digest` is a lower-case hex SHA-256 (what an asset is named by). */
export function isAssetDigest(digest: unknown): digest is string {
  return typeof digest === 'string' && DIGEST.test(digest);
}

/** The key of an asset, relative to the target; throws `SINK_PATH_ESCAPE` for anything but a hex SHA-256. */
export function assetKey(digest: string, target: string): string {
  if (!isAssetDigest(digest)) {
    throw new SinkError('SINK_PATH_ESCAPE', `${JSON.stringify(String(digest).slice(0, 80))} is not an asset digest`, {
      target,
    });
  }
  return `${ASSETS_DIR}/${digest}`;
}

/** Throws `SINK_INTEGRITY` unless `body` hashes to `digest` (an asset is stored only under its own SHA-256). */
export function checkAssetBody(digest: string, body: Buffer, target: string): void {
  if (createHash('sha256').update(body).digest('hex') !== digest) {
    throw new SinkError('SINK_INTEGRITY', `the bytes of ${ASSETS_DIR}/${digest} do not have that digest`, {
      target,
      key: `${ASSETS_DIR}/${digest}`,
    });
  }
}

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** A content type reduced to `type/subtype` (lower case), or `application/octet-stream` when it is not one. */
export function plainContentType(type: unknown): string {
  const plain = typeof type === 'string' ? type.split(';')[0]!.trim().toLowerCase() : '';
  return CONTENT_TYPE.test(plain) && plain.length <= 100 ? plain : 'application/octet-stream';
}

/** The assets of one replay: its URLs' digests and each digest's content type. */
export interface ReplayAssets {
  urls: Readonly<Record<string, string>>;
  types: Readonly<Record<string, string>>;
}

/** What `commit` of a replay writer may be given besides the events. */
export interface CommitOptions {
  /** The replay's captured assets: the `html` format embeds them (read back from the sink); other formats ignore them. */
  assets?: ReplayAssets;
}

const BASE64_CHUNK = 3 * 64 * 1024;

/**
 * The page's asset blocks: the map (URL → digest, digest → type) as JSON, then each digest's bytes as base64, read
 * from the sink with `read` one asset at a time (memory: one chunk). An asset the sink no longer has fails the page.
 */
export async function* pageAssetParts(
  assets: ReplayAssets,
  read: (digest: string) => Promise<Readable | undefined>,
  target: string,
): AsyncGenerator<Buffer> {
  const digests = [...new Set(Object.values(assets.urls))].filter(isAssetDigest);
  const types: Record<string, string> = {};
  for (const d of digests) types[d] = plainContentType(assets.types[d]);
  const urls: Record<string, string> = {};
  for (const [url, d] of Object.entries(assets.urls)) if (isAssetDigest(d)) urls[url] = d;
  const map = JSON.stringify({ urls, types }).replace(/</g, '\\u003c');
  yield Buffer.from(`<script type="application/json" id="replay-assets">${map}</script>\n`, 'utf8');
  for (const digest of digests) {
    const body = await read(digest);
    if (body === undefined)
      throw new SinkError('SINK_IO', `asset ${digest} is not stored`, { target, key: `${ASSETS_DIR}/${digest}` });
    yield Buffer.from(`<script type="text/plain" class="replay-asset" data-digest="${digest}">`, 'latin1');
    let rest: Buffer = Buffer.alloc(0);
    for await (const chunk of body as AsyncIterable<Buffer>) {
      rest = rest.length === 0 ? chunk : Buffer.concat([rest, chunk]);
      if (rest.length < BASE64_CHUNK) continue;
      const whole = rest.length - (rest.length % 3);
      yield Buffer.from(rest.subarray(0, whole).toString('base64'), 'latin1');
      rest = rest.subarray(whole);
    }
    yield Buffer.from(rest.toString('base64') + '</script>\n', 'latin1');
  }
}
