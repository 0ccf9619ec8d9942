/** What every S3 request of the sink needs: its errors (typed, never a credential) and a listing. */
import type { S3Link, S3Operations } from './s3-link.js';
import { describeCause, SinkError, type SinkErrorContext } from './errors.js';

export type S3Context = Pick<SinkErrorContext, 'key' | 'replayId'> & { target: string };

/** The HTTP status of an SDK error, when it has one. */
export function statusOf(err: unknown): number | undefined {
  const status = (err as { $metadata?: { httpStatusCode?: unknown } } | undefined)?.$metadata?.httpStatusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * S3 error names that mean the credentials themselves were refused (or are missing, for the SDK's credential chain):
 * retrying or going on with other replays cannot help.
 */
const AUTH_ERRORS = new Set([
  'CredentialsProviderError',
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'ExpiredToken',
  'InvalidToken',
  'TokenRefreshRequired',
  'AccessDenied',
  'AllAccessDisabled',
]);

export function s3Error(what: string, err: unknown, context: S3Context): SinkError {
  if (err instanceof SinkError) return err;
  const status = statusOf(err);
  const errorName = err instanceof Error ? err.name : undefined;
  const name =
    errorName !== undefined && errorName !== 'Error' && !(err as Error).message.startsWith(errorName)
      ? `${errorName}: `
      : '';
  const code = errorName !== undefined && AUTH_ERRORS.has(errorName) ? 'SINK_AUTH' : 'SINK_S3';
  return new SinkError(code, `${what}: ${name}${describeCause(err)}`, {
    ...context,
    status,
    cause: err,
  });
}

export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: unknown } | undefined)?.name;
  return statusOf(err) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/** Every key under `prefix` (after `startAfter`, when given), in key order, 1,000 a request. */
export async function* listKeys(
  client: S3Link,
  bucket: string,
  prefix: string,
  what: string,
  ctx: { target: string; key: string },
  startAfter?: string,
): AsyncIterable<string> {
  let token: string | undefined;
  do {
    let page: S3Operations['ListObjectsV2'][1];
    try {
      page = await client.send('ListObjectsV2', {
        Bucket: bucket,
        Prefix: prefix,
        ...(token === undefined
          ? startAfter === undefined
            ? {}
            : { StartAfter: startAfter }
          : { ContinuationToken: token }),
      });
    } catch (err) {
      throw s3Error(`cannot list ${what}`, err, ctx);
    }
    for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}

/** Keys a DeleteObjects request takes at most. */
const DELETE_BATCH = 1000;

/**
 * Deletes every key of `keys` (full keys, `base` included) in batches of 1,000; resolves how many. A key the store could
 * not delete fails with `SinkError` `SINK_S3` naming `what` and the first such key (relative to `base`).
 */
export async function deleteKeys(
  client: S3Link,
  bucket: string,
  keys: AsyncIterable<string>,
  what: string,
  ctx: { target: string; base: string; key: string },
): Promise<number> {
  let batch: string[] = [];
  let count = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    let result: S3Operations['DeleteObjects'][1];
    try {
      result = await client.send('DeleteObjects', {
        Bucket: bucket,
        Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
      });
    } catch (err) {
      throw s3Error(`cannot delete ${what}`, err, { target: ctx.target, key: ctx.key });
    }
    const failed = result.Errors ?? [];
    if (failed.length > 0) {
      const first = failed[0]!;
      throw new SinkError(
        'SINK_S3',
        `cannot delete ${failed.length} ${what}: ${first.Code ?? ''} ${first.Message ?? ''}`.trim(),
        {
          target: ctx.target,
          key: (first.Key ?? '').slice(ctx.base.length),
        },
      );
    }
    count += batch.length;
    batch = [];
  };
  for await (const key of keys) {
    batch.push(key);
    if (batch.length >= DELETE_BATCH) await flush();
  }
  await flush();
  return count;
}
