/**
 * The player's settings, from `<script id="player-config" type="application/json">` (`configBlock` in
 * sinks/player-page.ts): the player's options, when given, in both formats; the events' URL and the captured assets in
 * the shared player.
 */

import type { Json } from './events.js';

/** A replay's captured assets: recorded URL → digest, digest → media type (`ReplayAssets` in sinks/assets.ts). */
interface CapturedAssetMap {
  urls: Record<string, string>;
  types: Record<string, string>;
}

export interface PlayerConfig {
  /** Shared player: the events, NDJSON, streamed from this URL. */
  eventsUrl?: string;
  /** Shared player: the captured assets, fetched from `capturedBase` + digest. */
  assets?: CapturedAssetMap;
  capturedBase?: string;
  /** The player's options (`PlayerOptions` in options.ts), checked there like the URL's. */
  options?: Json;
}

export const config: PlayerConfig = JSON.parse(document.getElementById('player-config')!.textContent!);
