/** What every S3 request of the sink needs: its errors (typed, never a credential) and a listing. */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { describeCause, SinkError } from './errors.js';

export interface S3Context {
  target: string;
  key?: string;
  replayId?: string;
}

function statusOf(err: unknown): number | undefined {
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
  const name = errorName !== undefined && errorName !== 'Error' && !(err as Error).message.startsWith(errorName) ? `${errorName}: ` : '';
  const code = errorName !== undefined && AUTH_ERRORS.has(errorName) ? 'SINK_AUTH' : 'SINK_S3';
  return new SinkError(code, `${what}: ${name}${describeCause(err)}`, {
    ...context,
    ...(status === undefined ? {} : { status }),
    cause: err,
  });
}

export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: unknown } | undefined)?.name;
  return statusOf(err) === 404 || name === 'NotFound' || name === 'NoSuchKey';
}

/** Every key under `prefix` (after `startAfter`, when given), in key order, 1,000 a request. */
export async function* listKeys(client: S3Client, bucket: string, prefix: string, what: string, ctx: { target: string; key: string }, startAfter?: string): AsyncIterable<string> {
  let token: string | undefined;
  do {
    let page;
    try {
      page = await client.send(
        new ListObjectsV2Command({
          Bucket: bucket,
          Prefix: prefix,
          ...(token === undefined ? (startAfter === undefined ? {} : { StartAfter: startAfter }) : { ContinuationToken: token }),
        }),
      );
    } catch (err) {
      throw s3Error(`cannot list ${what}`, err, ctx);
    }
    for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
}

