/**
 * `findReplays`: the catalogue's query over a run's archive (a folder or `s3://bucket/prefix`), as the CLI's `find`
 * asks it — the archive opened read-only (refused without a manifest, nothing created), its catalogue brought up to
 * the manifest, the matching replays yielded in the query's order.
 */
import {
  type CatalogueOptions,
  type CatalogueQuery,
  type CatalogueRow,
  catalogueIn,
  openCatalogue,
} from '../catalogue/index.js';
import { entryRun, releaseRun, type EntryOptions } from './run.js';

export interface FindOptions extends EntryOptions {
  /** What to find (default: every replay, newest first). */
  query?: CatalogueQuery | undefined;
  /** Where the archive's catalogue is cached (default: the run's `catalogueDir`), a hook told when it is built. */
  catalogue?: CatalogueOptions | undefined;
  /** At most this many replays. */
  max?: number | undefined;
}

/** The replays of the run's archive (`out`, or an open `run`'s) that match `query`, in its order. */
export async function* findReplays(options: FindOptions): AsyncGenerator<CatalogueRow> {
  const entry = entryRun(options);
  try {
    const archive = await entry.run.archive({ create: false, readOnly: true });
    const catalogue = await openCatalogue(
      archive,
      catalogueIn(options.catalogue ?? {}, entry.run.settings.catalogueDir),
    );
    try {
      yield* catalogue.rows(options.query ?? {}, options.max);
    } finally {
      catalogue.close();
    }
  } finally {
    await releaseRun(entry);
  }
}
