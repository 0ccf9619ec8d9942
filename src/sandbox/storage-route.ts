import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { gunzip, gzip } from 'node:zlib';
import type { SandboxContext } from './context.js';
import type { CorruptKind, FileEncoding } from './faults.js';
import { sendPaced, sendS3Error } from './http-util.js';
import { STORAGE_PREFIX } from './presign.js';
import { parseStorageKey } from './storage-keys.js';

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

/** Replaces the middle third of a JSON text with bytes no JSON parser accepts. */
function garble(text: Buffer): Buffer {
  const out = Buffer.from(text);
  const junk = Buffer.from('\u0000}]{garbage:,', 'utf8');
  const at = Math.floor(out.length / 3);
  for (let i = 0; i < Math.max(junk.length, Math.floor(out.length / 3)) && at + i < out.length; i++) {
    out[at + i] = junk[i % junk.length]!;
  }
  return out;
}

/** The body and headers a stored file is served with, under the encoding and corruption switches. */
async function renderFile(
  gz: Buffer,
  encoding: FileEncoding,
  corrupt: CorruptKind | null,
): Promise<{ body: Buffer; headers: Record<string, string> }> {
  let body: Buffer;
  if (encoding === 'inflated') {
    const text = await gunzipAsync(gz);
    body =
      corrupt === null
        ? text
        : corrupt === 'garbage-json'
          ? garble(text)
          : text.subarray(0, Math.floor(text.length / 2));
  } else if (corrupt === 'truncated-gzip') {
    body = gz.subarray(0, Math.floor(gz.length / 2));
  } else if (corrupt === 'garbage-json') {
    body = await gzipAsync(garble(await gunzipAsync(gz)));
  } else {
    body = gz;
  }
  const headers: Record<string, string> =
    encoding === 'gzip'
      ? { 'Content-Type': 'application/octet-stream' }
      : encoding === 'content-encoding-gzip'
        ? { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }
        : { 'Content-Type': 'application/json' };
  headers['Content-Length'] = String(body.length);
  headers.ETag = `"${createHash('md5').update(body).digest('hex')}"`;
  return { body, headers };
}

/** GET /__storage/<key>?X-Amz-...: the presigned-URL object store. */
export async function handleStorage(
  ctx: SandboxContext,
  req: IncomingMessage,
  rawPath: string,
  query: URLSearchParams,
  res: ServerResponse,
): Promise<void> {
  const requestId = randomBytes(8).toString('hex').toUpperCase();
  const { stats } = ctx;
  if (req.method !== 'GET') {
    sendS3Error(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.', requestId);
    return;
  }
  if (req.headers.authorization !== undefined) {
    stats.badRequests++;
    sendS3Error(
      res,
      400,
      'InvalidArgument',
      'Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified',
      requestId,
    );
    return;
  }
  let key: string;
  try {
    key = decodeURIComponent(rawPath.slice(STORAGE_PREFIX.length));
  } catch {
    stats.badRequests++;
    sendS3Error(res, 400, 'InvalidURI', "Couldn't parse the specified URI.", requestId);
    return;
  }
  const verdict = ctx.signer.verify(key, query, ctx.opts.now(), (e) => ctx.faults.isEpochExpired(e));
  if (!verdict.ok) {
    stats.forbidden++;
    if (verdict.expired) stats.expired++;
    sendS3Error(res, 403, verdict.code, verdict.message, requestId);
    return;
  }
  const parsed = parseStorageKey(key);
  const replay = parsed === null ? undefined : ctx.catalog.get(parsed.replayId);
  const all = parsed === null || replay === undefined ? undefined : replay.sample.files[parsed.version];
  const index = all === undefined || parsed === null ? -1 : all.findIndex((f) => f.name === parsed.name);
  if (parsed === null || all === undefined || index < 0) {
    stats.notFound++;
    sendS3Error(res, 404, 'NoSuchKey', 'The specified key does not exist.', requestId);
    return;
  }
  const fault = ctx.faults.nextStorage();
  if (fault?.kind === 'server-error') {
    stats.serverErrors++;
    const code = fault.status === 503 ? 'SlowDown' : 'InternalError';
    const message =
      fault.status === 503 ? 'Please reduce your request rate.' : 'We encountered an internal error. Please try again.';
    sendS3Error(res, fault.status, code, message, requestId);
    return;
  }
  if (fault?.kind === 'redirect') {
    stats.redirects++;
    res.writeHead(302, { Location: req.url ?? rawPath, 'Content-Length': '0' });
    res.end();
    return;
  }
  const corrupt =
    ctx.faults.isCorrupt(parsed.replayId) && index === Math.floor(all.length / 2) ? ctx.faults.corruptKind() : null;
  const { body, headers } = await renderFile(await readFile(all[index]!.path), ctx.faults.fileEncoding(), corrupt);
  if (fault?.kind === 'reset') {
    stats.resets++;
    res.writeHead(200, headers);
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => {
      res.socket?.destroy();
    });
    return;
  }
  res.on('finish', () => {
    stats.filesServed++;
    stats.bytesServed += body.length;
  });
  sendPaced(res, 200, headers, body, ctx.faults.slowBodyMs('storage'));
}
