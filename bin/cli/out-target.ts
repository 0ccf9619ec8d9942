/**
 * What `--out` names, checked before any request: standard output, an S3 prefix, a folder, or (for a command that
 * writes one replay) one file. A mistake is a usage error (exit 2) that names the flag and what to write instead,
 * not the system's message after the run has started.
 */
import { stat } from 'node:fs/promises';
import { locateArchive, type ArchiveLocation } from '../../sinks/archive.js';
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
  const at = located(out);
  if (at.kind === 's3') return { kind: 's3' };
  const path = at.target;
  const kind = await pathKind(path);
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
    return { kind: 'file', path, format: named[1]!.toLowerCase() as OutputFormat, gzip: named[2] !== undefined };
  }
  return { kind: 'folder' };
}

/** Where `--out` is, as the library tells it (`locateArchive`: a path, a `file://` URL or `s3://`), or a usage error. */
function located(out: string): ArchiveLocation {
  try {
    return locateArchive(out);
  } catch {
    // A file URL with a host (`file://replays`) names no file of this machine; another scheme is not supported.
    const file = /^file:\/\/([^/]+)(.*)$/i.exec(out);
    if (file) usage(`--out ${out} is not a file of this machine: for a folder, write --out ./${file[1]}${file[2]}`);
    const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(out);
    return usage(
      `--out takes a folder path, a file:// URL or s3://bucket/prefix; ${scheme?.[1] ?? out}:// is not supported`,
    );
  }
}
