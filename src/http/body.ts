/**
 * Reading response bodies with bounds: a whole JSON page up to a byte cap, or an excerpt of an error body.
 */

type ByteStream = AsyncIterable<Uint8Array> & { destroy(err?: Error): unknown };

export class BodyTooLargeError extends Error {
  readonly code = 'body_too_large';
  constructor(readonly limit: number) {
    super(`response body larger than ${limit} bytes`);
    this.name = 'BodyTooLargeError';
  }
}

/** Reads a whole body; throws BodyTooLargeError (and destroys the stream) past `max` bytes. */
export async function readAll(body: ByteStream, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of body) {
    n += chunk.byteLength;
    if (n > max) {
      body.destroy();
      throw new BodyTooLargeError(max);
    }
    chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }
  return Buffer.concat(chunks, n);
}

/** Reads at most `max` bytes of a body as UTF-8 and drops the rest; never throws. */
export async function readExcerpt(body: ByteStream, max = 8192): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  try {
    for await (const chunk of body) {
      const b = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      chunks.push(b);
      n += b.length;
      if (n >= max) break;
    }
  } catch {
    // a body that fails half-way still gives what arrived
  }
  try {
    body.destroy();
  } catch {
    // already closed
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}
