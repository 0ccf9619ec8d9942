import type { OutputSpec } from '../../../sinks/sink.js';

/** json and ndjson, each without and with gzip (the html page output is tested in test/player). */
export const JSON_AND_NDJSON_OUTPUTS: readonly OutputSpec[] = [
  { format: 'json', gzip: false },
  { format: 'json', gzip: true },
  { format: 'ndjson', gzip: false },
  { format: 'ndjson', gzip: true },
];
