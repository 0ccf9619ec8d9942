/**
 * `findReplays`: the catalogue's query over an archive (a folder or `s3://bucket/prefix`), as the CLI's `find` and
 * `view`'s index ask it — the archive opened for reading (refused without a manifest), its catalogue brought up to
 * the manifest, the matching replays yielded in the query's order.
 */
import { openArchive } from '../../sinks/archive.js';
import type { S3SinkOptions } from '../../sinks/s3.js';
import { type CatalogueOptions, openCatalogue } from './catalogue.js';
import type { CatalogueQuery } from './query.js';
import type { CatalogueRow } from './rows.js';

export interface FindOptions {
  /** S3 client options for an `s3://` archive (endpoint, path style, region, credentials). */
  s3?: S3SinkOptions;
  /** Where the archive's catalogue is cached, and a hook told when it is built. */
  catalogue?: CatalogueOptions;
  /** At most this many replays. */
  max?: number;
}

/** The replays of the archive at `target` that match `query`, in its order (`-start`, newest first, by default). */
export async function* findReplays(
  target: string,
  query: CatalogueQuery = {},
  options: FindOptions = {},
): AsyncGenerator<CatalogueRow> {
  const archive = await openArchive(target, {
    create: false,
    ...(options.s3 === undefined ? {} : { s3: options.s3 }),
    local: { hashWorker: false, cleanStaleTemp: false },
  });
  try {
    const catalogue = await openCatalogue(archive, options.catalogue);
    try {
      yield* catalogue.rows(query, options.max);
    } finally {
      catalogue.close();
    }
  } finally {
    await archive.close();
  }
}
