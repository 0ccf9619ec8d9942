/** The work claims of a balanced run in an S3 target (see ./work-claims.ts for what they are). */
import type { S3Link } from './s3-link.js';
import { deleteKeys, isNotFound, listKeys, s3Error, statusOf } from './s3-requests.js';
import type { WorkClaims } from './sink.js';
import { BALANCE_DIR, checkRun, HOLDER_BYTES, holderOf, workClaimKey } from './work-claims.js';

/**
 * The claims of `run` under `s3://bucket/base`. A claim is read first (there: its holder), else created with
 * `If-None-Match: *` (S3 refuses it when one is there: 412), then read back: a store that ignores the condition (some S3-compatible servers) still
 * tells each of two racing writers the same holder, so at most the replay is exported twice.
 */
export function s3WorkClaims(client: S3Link, bucket: string, base: string, target: string, run: string): WorkClaims {
  checkRun(run, target);
  /** When the object at `key` was written (ms since the epoch), or undefined when there is none. */
  const head = async (key: string, replayId: string): Promise<number | undefined> => {
    try {
      const res = await client.send('HeadObject', { Bucket: bucket, Key: base + key });
      return res.LastModified?.getTime() ?? 0;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw s3Error(`HeadObject ${key} failed`, err, { target, key, replayId });
    }
  };
  const get = async (key: string, replayId: string): Promise<string | undefined> => {
    try {
      const res = await client.send('GetObject', {
        Bucket: bucket,
        Key: base + key,
        Range: `bytes=0-${HOLDER_BYTES - 1}`,
      });
      return (await res.Body?.transformToString('utf8')) ?? '';
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw s3Error(`GetObject ${key} failed`, err, { target, key, replayId });
    }
  };
  const put = async (key: string, text: string, replayId: string, exclusive: boolean): Promise<boolean> => {
    try {
      await client.send('PutObject', {
        Bucket: bucket,
        Key: base + key,
        Body: text,
        ContentType: 'text/plain',
        IfNoneMatch: exclusive ? '*' : undefined,
      });
      return true;
    } catch (err) {
      if (exclusive && (statusOf(err) === 412 || statusOf(err) === 409)) return false;
      throw s3Error(`PutObject ${key} failed`, err, { target, key, replayId });
    }
  };
  return {
    async take(replayId, holder) {
      const key = workClaimKey(run, replayId, 'taken');
      // One request when it is claimed already: the read says both that and by whom.
      const before = await get(key, replayId);
      if (before !== undefined) return holderOf(before);
      // Unique per call, so that the read-back tells this writer from another that wrote the same holder.
      const mine = `${holder} ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
      if (!(await put(key, mine, replayId, true))) return holderOf((await get(key, replayId)) ?? '');
      const there = (await get(key, replayId)) ?? '';
      return there === mine ? undefined : holderOf(there);
    },
    async retake(replayId, holder) {
      await put(workClaimKey(run, replayId, 'taken'), holder, replayId, false);
    },
    async finish(replayId) {
      await put(workClaimKey(run, replayId, 'done'), '', replayId, false);
    },
    finishedAt: (replayId) => head(workClaimKey(run, replayId, 'done'), replayId),
    async clearOtherRuns() {
      const runs = new Set<string>();
      const prefix = `${base}${BALANCE_DIR}/`;
      async function* others(): AsyncIterable<string> {
        for await (const full of listKeys(client, bucket, prefix, 'the work claims', { target, key: BALANCE_DIR })) {
          const name = full.slice(prefix.length).split('/')[0]!;
          if (name === run) continue;
          runs.add(name);
          yield full;
        }
      }
      await deleteKeys(client, bucket, others(), 'work claims of earlier runs', { target, base, key: BALANCE_DIR });
      return runs.size;
    },
  };
}
