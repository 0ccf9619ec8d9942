/**
 * Walking a local target's folders, each opened no-follow from the one above (target.ts): listing the files below a
 * folder, removing a tree (what it holds, never what a link in it points to), and removing folders a replay left
 * empty.
 */
import { TargetRefusal } from './refusal.js';
import type { Dir, Target } from './target.js';

/**
 * Every entry that is not a folder (a file, a link, anything else) below `dir`, as keys relative to the target, in the
 * order the folders list them; `skip` leaves a name out (and, for a folder, what it holds). Links to folders are
 * listed as links, never walked.
 */
export async function* filesBelow(
  dir: Dir,
  skip: (name: string, depth: number) => boolean = () => false,
  depth = 0,
): AsyncGenerator<string> {
  for await (const entry of dir.entries()) {
    if (skip(entry.name, depth)) continue;
    if (!entry.isDirectory()) {
      yield dir.keyOf(entry.name);
      continue;
    }
    const child = await dir.child(entry.name, false).catch((err: unknown) => {
      // Swapped for a link (or a file) since it was listed: listed as what it is now.
      if (err instanceof TargetRefusal) return null;
      throw err;
    });
    if (child === null) yield dir.keyOf(entry.name);
    if (child === undefined || child === null) continue;
    try {
      yield* filesBelow(child, skip, depth + 1);
    } finally {
      await child.close();
    }
  }
}

/**
 * Removes `name` in `dir` and, when it is a folder, everything in it first, each folder opened no-follow: a link met
 * anywhere (even `name` itself) is removed as a link, what it points to is never touched. Resolves whether something
 * was there.
 */
export async function removeTree(dir: Dir, name: string): Promise<boolean> {
  const st = await dir.lstat(name);
  if (st === undefined) return false;
  if (!st.isDirectory()) return dir.unlink(name);
  const child = await dir.child(name, false).catch((err: unknown) => {
    if (err instanceof TargetRefusal) return null;
    throw err;
  });
  // Swapped for a link or a file since: that entry goes itself.
  if (child === null) return dir.unlink(name);
  if (child === undefined) return false;
  try {
    for await (const entry of child.entries()) await removeTree(child, entry.name);
  } finally {
    await child.close();
  }
  await dir.rmdir(name);
  return true;
}

/**
 * Removes the folder `key` and then its parents up to (not including) the root, as long as each is empty. `rmdir`
 * only removes an empty folder, so a file another process creates in it meanwhile keeps it; a process that finds it
 * gone between making it and creating a file in it makes it again (callers retry on ENOENT).
 */
export async function removeEmptyFolders(target: Target, key: string): Promise<void> {
  const segments = key === '' ? [] : key.split('/');
  for (let depth = segments.length; depth > 0; depth--) {
    const parent = await target.folder(segments.slice(0, depth - 1).join('/'), false).catch(() => undefined);
    if (parent === undefined) return;
    try {
      if (!(await parent.rmdir(segments[depth - 1]!))) return;
    } finally {
      await parent.close();
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
