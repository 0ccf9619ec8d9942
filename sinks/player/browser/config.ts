/**
 * The player's settings, from `<script id="player-config" type="application/json">` (`configBlock` in
 * sinks/player-page.ts): empty in the one-page format; the events' URL and the captured assets in the shared player.
 */

/** A replay's captured assets: recorded URL → digest, digest → media type (`ReplayAssets` in sinks/assets.ts). */
export interface CapturedAssetMap {
  urls: Record<string, string>;
  types: Record<string, string>;
}

export interface PlayerConfig {
  /** Shared player: the events, NDJSON, streamed from this URL. */
  eventsUrl?: string;
  /** Shared player: the captured assets, fetched from `capturedBase` + digest. */
  assets?: CapturedAssetMap;
  capturedBase?: string;
}

export const config: PlayerConfig = JSON.parse(document.getElementById('player-config')!.textContent!);
