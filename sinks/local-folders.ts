/**
 * The folders of a local target's keys (`<target>/<device segment>/`): made one component at a time, each checked to
 * be a real folder — not a symbolic link (even one pointing inside the target), not a file — and removed again when a
 * replay that ends without an output leaves one empty.
 *
 * The target folder itself is used as given: it may be a symbolic link the user chose.
 *
 * What remains: Node has no openat/mkdirat, so files are opened by path. Between the lstat that checks a folder and the
 * open of a file in it, a process that can write to the target could swap the checked folder for a symbolic link;
 * O_NOFOLLOW (temp-file.ts) only protects the last component of a path. Closing that window needs openat with
 * O_NOFOLLOW on every component (or a process that cannot be raced, i.e. a target nobody else writes to).
 */

import { lstat, mkdir, rmdir } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { SinkError } from './errors.js';
import { fsyncDir } from './temp-file.js';

/** A component under the target that is not a real folder. */
export class NotAFolderError extends Error {
  override readonly name = 'NotAFolderError';
  constructor(
    /** The component, relative to the target, `/`-separated. */
    readonly folder: string,
    readonly kind: 'symlink' | 'other',
  ) {
    super(
      kind === 'symlink'
        ? `folder ${folder} in the target is a symbolic link`
        : `${folder} in the target is not a folder`,
    );
  }
}

/** The components of `folder` below `root` (empty for the root itself). */
function componentsOf(root: string, folder: string): string[] {
  const rel = relative(root, folder);
  if (rel === '') return [];
  const names = rel.split(sep);
  // The callers' keys are checked to stay inside the target; this never walks (or removes) anything above it.
  if (isAbsolute(rel) || names.includes('..'))
    throw new SinkError('SINK_PATH_ESCAPE', `${folder} is not inside ${root}`, { target: root });
  return names;
}

/**
 * Makes `folder` (under `root`) and every folder between, checking each component with lstat. Throws
 * `NotAFolderError` for a symbolic link or a non-folder; system errors as they come (ENOENT when another process
 * removed a component meanwhile: call again).
 */
export async function makeFolders(root: string, folder: string): Promise<void> {
  const names = componentsOf(root, folder);
  let dir = root;
  for (let k = 0; k < names.length; k++) {
    const parent = dir;
    dir = join(dir, names[k]!);
    let created = false;
    try {
      await mkdir(dir);
      created = true;
    } catch (err) {
      // A symbolic link (dangling or not) or a file of that name is EEXIST too: the lstat below tells.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const st = await lstat(dir);
    if (!st.isDirectory())
      throw new NotAFolderError(names.slice(0, k + 1).join('/'), st.isSymbolicLink() ? 'symlink' : 'other');
    if (created) await fsyncDir(parent);
  }
}

/** Whether `folder` and every folder between it and `root` exist as real folders (no symbolic link among them). */
export async function areRealFolders(root: string, folder: string): Promise<boolean> {
  let dir = root;
  for (const name of componentsOf(root, folder)) {
    dir = join(dir, name);
    try {
      if (!(await lstat(dir)).isDirectory()) return false;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw err;
    }
  }
  return true;
}

/**
 * Whether `folder` and every folder between it and `root` exist (false when one is missing); throws
 * `NotAFolderError` for a component that is a symbolic link or not a folder (what a removal must not go through).
 */
export async function foldersToRemoveIn(root: string, folder: string): Promise<boolean> {
  const names = componentsOf(root, folder);
  let dir = root;
  for (let k = 0; k < names.length; k++) {
    dir = join(dir, names[k]!);
    let st;
    try {
      st = await lstat(dir);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw err;
    }
    if (!st.isDirectory())
      throw new NotAFolderError(names.slice(0, k + 1).join('/'), st.isSymbolicLink() ? 'symlink' : 'other');
  }
  return true;
}

/**
 * Removes `folder` and then its parents up to (not including) `root`, as long as each is empty. `rmdir` only ever
 * removes an empty folder, so a file another process creates in it meanwhile keeps it (ENOTEMPTY); a process that
 * finds it gone between making it and creating a file in it makes it again (the local sink retries on ENOENT).
 */
export async function removeEmptyFolders(root: string, folder: string): Promise<void> {
  for (let dir = folder; componentsOf(root, dir).length > 0; dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      return;
    }
  }
}

/**
 * How many writers of this process use each folder: a folder is only removed when the last of them ended without an
 * output, so that a replay failing never takes the folder from under another replay of the same device in flight.
 */
export class FolderUsers {
  private readonly users = new Map<string, number>();

  enter(folder: string): void {
    this.users.set(folder, (this.users.get(folder) ?? 0) + 1);
  }

  /** Returns whether this was the folder's last user. */
  leave(folder: string): boolean {
    const n = (this.users.get(folder) ?? 1) - 1;
    if (n > 0) {
      this.users.set(folder, n);
      return false;
    }
    this.users.delete(folder);
    return true;
  }
}
