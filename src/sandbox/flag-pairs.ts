/** The `key=value,key=value` form of the sandbox command's `--faults` and `--options`. */

/** The pairs of `text`, in order (empty items skipped); `refuse` makes the error for an item that is not key=value. */
export function flagPairs(text: string, refuse: (item: string) => Error): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw refuse(pair.slice(0, 60));
    out.push([pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()]);
  }
  return out;
}
