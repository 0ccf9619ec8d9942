/**
 * What `--out` names, checked before any request: standard output, an S3 prefix, a folder, or (for a command that
 * writes one replay) one file. A mistake is a usage error (exit 2) that names the flag and what to write instead,
 * not the system's message after the run has started.
 */
import { stat } from 'node:fs/promises';
import type { OutputFormat } from '../../src/index.js';
import { usage } from './flags.js';

export type OutTarget =
  | { kind: 'stdout' }
  | { kind: 's3' }
  | { kind: 'folder' }
  /** One replay written to this file, in the format and compression its name says. */
  | { kind: 'file'; path: string; format: OutputFormat; gzip: boolean };

/** A file name a replay is written to: `replay.json`, `x.ndjson.gz`, `page.html`. */
const FILE_NAME = /\.(json|ndjson|html)(\.gz)?$/i;

/** What is at `path`: a file, a folder, nothing, or something else (a device, a socket). */
export async function pathKind(path: string): Promise<'file' | 'folder' | 'none' | 'other'> {
  try {
    const s = await stat(path);
    return s.isDirectory() ? 'folder' : s.isFile() ? 'file' : 'other';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw err;
  }
}

/**
 * `--out` of `command`. `oneFile`: the command writes one replay (`export <one id>`), so a file name is taken as the
 * file to write; otherwise a file (existing, or named like one) is refused.
 */
export async function outTarget(out: string, command: string, oneFile: boolean): Promise<OutTarget> {
  if (out.trim() === '') usage('--out must not be empty');
  if (out === '-') return { kind: 'stdout' };
  if (/^s3:\/\//i.test(out)) return { kind: 's3' };
  if (/^file:/i.test(out)) {
    const path = out.replace(/^file:(\/\/(localhost)?)?/i, '');
    usage(`--out takes a folder path, not a URL: for ${out} write --out ${path.startsWith('/') ? path : `./${path}`}`);
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(out);
  if (scheme) usage(`--out takes a folder path or s3://bucket/prefix; ${scheme[1]}:// is not supported`);
  const kind = await pathKind(out);
  const what = command === 'export' ? 'export of several replays' : command;
  if (kind === 'other') usage(`--out ${out} is neither a folder nor a file`);
  const named = FILE_NAME.exec(out);
  if (kind === 'file' || (kind === 'none' && named)) {
    if (!oneFile)
      usage(
        `--out ${out} ${kind === 'file' ? 'is a file' : 'names a file'}; ${what} writes a folder: give a folder (e.g. --out ./archive) or s3://bucket/prefix`,
      );
    if (!named)
      usage(
        `--out ${out} is a file without a replay's extension: write to a .json, .ndjson or .html file (.gz to compress), or give a folder`,
      );
    return { kind: 'file', path: out, format: named[1]!.toLowerCase() as OutputFormat, gzip: named[2] !== undefined };
  }
  return { kind: 'folder' };
}
