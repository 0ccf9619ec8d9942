/**
 * What the player's page gives its browser code besides the DOM: rrweb's UMD bundle (inlined or served before the
 * player) and the globals the player sets for the page's hand-over scripts, tests and tools.
 */
import type * as Rrweb from 'rrweb';
import type { Replayer } from 'rrweb';
import type { PlayerApi } from './api.js';
import type { ReplayEvent } from './events.js';

declare global {
  const rrweb: typeof Rrweb;
  interface Window {
    /** The player's programmatic interface (api.ts). */
    player?: PlayerApi;
    /** The Replayer now playing. */
    replayer?: Replayer;
    /** Every event taken so far, sanitized. */
    replayEvents?: ReplayEvent[];
    /** One-page format: takes the event blocks parsed so far (called by the script after each block). */
    replayTakeBlocks?: () => void;
  }
}
