import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DecodeError, decodeEventBytes } from '../../decoders/index.js';
import { chunked, makeEvents, v3Text } from './fixtures.js';

/** The events (as text) of a file given in pieces of `chunk` bytes, or its DecodeError. */
async function decode(file: Buffer, chunk: number): Promise<string[] | DecodeError> {
  const events: string[] = [];
  try {
    for await (const batch of decodeEventBytes(chunked(file, chunk), { file: 'f.json.gz' }))
      for (const e of batch) events.push(e.toString());
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  return events;
}

/** The BAD_GZIP error of `file` in every chunking (the same message in each), or a failure naming the chunking. */
async function badGzip(file: Buffer): Promise<string> {
  const messages = new Set<string>();
  for (const chunk of [file.length, 1 << 16, 1000, 7]) {
    const got = await decode(file, chunk);
    expect(got, `in pieces of ${chunk}`).toBeInstanceOf(DecodeError);
    const err = got as DecodeError;
    expect(err.code).toBe('BAD_GZIP');
    expect(err.file).toBe('f.json.gz');
    messages.add(err.message);
  }
  expect([...messages].length).toBe(1);
  return [...messages][0]!;
}

const events = makeEvents(30, 4);
const text = v3Text(events);
const want = events.map((e) => JSON.stringify(e));
const gz = gzipSync(text);

describe('the gzip layer must be used whole: nothing may follow the last member', () => {
  it('stray bytes after a 0x00 following the gzip data (node ignores them) are BAD_GZIP at their compressed offset', async () => {
    expect(await badGzip(Buffer.concat([gz, Buffer.from([0, 0x41, 0x42, 0x43])]))).toContain(
      `stray bytes after the gzip data, from compressed byte ${gz.length}`,
    );
    expect(await badGzip(Buffer.concat([gz, Buffer.alloc(16)]))).toContain(`from compressed byte ${gz.length}`);
  });

  it('other stray bytes are BAD_GZIP at their compressed offset, not at 0', async () => {
    expect(await badGzip(Buffer.concat([gz, Buffer.from('garbage')]))).toContain(
      `stray bytes after the gzip data, from compressed byte ${gz.length}`,
    );
  });

  it('several members still decode, in any chunking; stray bytes after them are placed after the last one', async () => {
    const cut = text.indexOf('},{', text.length >> 1) + 2;
    const members = [gzipSync(text.slice(0, cut)), gzipSync(''), gzipSync(text.slice(cut))];
    const file = Buffer.concat(members);
    for (const chunk of [file.length, members[0]!.length, members[0]!.length + 1, 1000, 7])
      expect(await decode(file, chunk)).toEqual(want);
    expect(await badGzip(Buffer.concat([file, Buffer.from('xyz')]))).toContain(`from compressed byte ${file.length}`);
    expect(await badGzip(Buffer.concat([file, Buffer.from([0, 1])]))).toContain(`from compressed byte ${file.length}`);
  });

  it('a corrupt member is named by where it starts; a truncated one by where the file ends', async () => {
    const second = gzipSync('');
    const broken = Buffer.concat([gz, second]);
    broken[gz.length + second.length - 5] ^= 0xff; // the second member's CRC-32
    expect(await badGzip(broken)).toContain(`the gzip member from compressed byte ${gz.length} is corrupt`);
    expect(await badGzip(gz.subarray(0, gz.length - 3))).toContain(
      `ends inside a gzip member, after ${gz.length - 3} compressed bytes`,
    );
  });
});
