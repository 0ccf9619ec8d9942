/**
 * The key of an `ok` line's `assets_missing` that counts the URLs it does not list: beyond `maxUrls`, over
 * `MAX_URL_BYTES`, or too many to record. Its own module: the pipeline names it without loading the capture.
 */
export const MORE_URLS_KEY = '*';
