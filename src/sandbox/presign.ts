import { createHmac, timingSafeEqual } from 'node:crypto';
import { formatAmzDate, parseAmzDate } from './timestamps.js';

export const STORAGE_PREFIX = '/__storage/';
const ALGORITHM = 'AWS4-HMAC-SHA256';
const ACCESS_KEY_PREFIX = 'SANDBOXAKIA';

/** S3's URI encoding: every byte except A-Z a-z 0-9 - . _ ~ is percent-encoded. */
export function uriEncode(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

export type VerifyResult =
  | { ok: true; key: string }
  | {
      ok: false;
      code: 'AccessDenied' | 'SignatureDoesNotMatch' | 'AuthorizationQueryParametersError';
      message: string;
      expired: boolean;
    };

/**
 * Presigned-style URLs (the query of an S3 SigV4 presigned GET). The signature is an HMAC over the key, credential,
 * date and expiry, so none of them can be edited. The credential carries the URL epoch used by the expireUrls switch.
 */
export class UrlSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly baseUrl: string,
    private readonly ttlSeconds: number,
  ) {}

  private sign(key: string, credential: string, amzDate: string, expires: string): string {
    return createHmac('sha256', this.secret)
      .update(['presign', key, credential, amzDate, expires].join('\n'))
      .digest('hex');
  }

  /** `path` is the URL path of the object (STORAGE_PREFIX + encoded parts); `key` its decoded form. */
  presign(key: string, path: string, nowMs: number, epoch: number): string {
    const amzDate = formatAmzDate(nowMs);
    const credential = `${ACCESS_KEY_PREFIX}${epoch}/${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
    const expires = String(this.ttlSeconds);
    const q = new URLSearchParams();
    q.set('X-Amz-Algorithm', ALGORITHM);
    q.set('X-Amz-Credential', credential);
    q.set('X-Amz-Date', amzDate);
    q.set('X-Amz-Expires', expires);
    q.set('X-Amz-SignedHeaders', 'host');
    q.set('X-Amz-Signature', this.sign(key, credential, amzDate, expires));
    return `${this.baseUrl}${path}?${q.toString()}`;
  }

  /**
   * Checks the query of a storage request for `key` (already decoded from the path) at `nowMs`;
   * `isEpochExpired` says whether URLs of an epoch were expired by the expireUrls switch.
   */
  verify(key: string, query: URLSearchParams, nowMs: number, isEpochExpired: (epoch: number) => boolean): VerifyResult {
    const algorithm = query.get('X-Amz-Algorithm');
    const credential = query.get('X-Amz-Credential');
    const amzDate = query.get('X-Amz-Date');
    const expires = query.get('X-Amz-Expires');
    const signature = query.get('X-Amz-Signature');
    if (algorithm === null || credential === null || amzDate === null || expires === null || signature === null) {
      return {
        ok: false,
        code: 'AuthorizationQueryParametersError',
        message:
          'Query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters.',
        expired: false,
      };
    }
    const want = Buffer.from(this.sign(key, credential, amzDate, expires), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (algorithm !== ALGORITHM || given.length !== want.length || !timingSafeEqual(given, want)) {
      return {
        ok: false,
        code: 'SignatureDoesNotMatch',
        message: 'The request signature we calculated does not match the signature you provided.',
        expired: false,
      };
    }
    const issued = parseAmzDate(amzDate);
    const ttl = Number(expires);
    const epochText = credential.slice(ACCESS_KEY_PREFIX.length, credential.indexOf('/'));
    const epoch = Number(epochText);
    const timeExpired = issued === null || !Number.isFinite(ttl) || nowMs > issued + ttl * 1000;
    if (timeExpired || !Number.isInteger(epoch) || isEpochExpired(epoch)) {
      return { ok: false, code: 'AccessDenied', message: 'Request has expired', expired: true };
    }
    return { ok: true, key };
  }
}
