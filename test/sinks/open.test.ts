import { describe, expect, it } from 'vitest';
import { SinkError } from '../../sinks/errors.js';
import { createS3Sink } from '../../sinks/index.js';
import { openSink } from '../../sinks/open.js';

describe('S3 sink loaded on first use', () => {
  it('checks the URL and the options at once, as createS3Sink in sinks/s3.ts does', () => {
    for (const s3 of [
      { partSize: 1024 },
      { partSize: 5 * 1024 * 1024 + 0.5 },
      { queueSize: 0 },
      { checksums: 'always' as never },
    ]) {
      expect(() => openSink('s3://bucket/x', { s3 })).toThrow(SinkError);
      expect(() => createS3Sink('s3://bucket/x', s3)).toThrow(SinkError);
    }
    expect(() => createS3Sink('gs://bucket/x')).toThrow(SinkError);
    const sink = createS3Sink('s3://bucket//a/b/', { region: 'us-east-1' });
    expect(sink.target).toBe('s3://bucket/a/b');
    expect(sink.keyFor('dev/123', { format: 'ndjson', gzip: true })).toBe(
      openSink('/tmp/x').keyFor('dev/123', { format: 'ndjson', gzip: true }),
    );
  });

  it('refuses use after close without loading anything', async () => {
    const sink = createS3Sink('s3://bucket/x', { region: 'us-east-1' });
    await sink.close();
    const err = await sink.open('dev/1', { format: 'json', gzip: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SinkError);
    expect((err as SinkError).code).toBe('SINK_STATE');
  });
});
