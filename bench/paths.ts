/** Where the bench keeps its generated replays and its results (both git-ignored). */

import { join } from 'node:path';
import { packageRoot } from '../src/util/package-root.js';

export const ROOT = packageRoot();
export const SAMPLES_DIR = join(ROOT, 'samples');
export const DATA_DIR = join(ROOT, 'bench', '.data');
export const RESULTS_DIR = join(ROOT, 'bench', 'results');
/** Samples layout served by the sandbox for the throughput and peak-RSS figures (the 200 MB and 1 GB replays). */
export const BIG_SAMPLES_DIR = join(DATA_DIR, 'samples');
/** Samples layout with one small 4-file replay; the sandbox clones it into the archive run's replays. */
export const ARCHIVE_SAMPLES_DIR = join(DATA_DIR, 'archive-samples');
export const META_FILE = join(DATA_DIR, 'meta.json');
