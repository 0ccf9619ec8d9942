/**
 * The shared player as the view server serves it: the player's files once, under a path versioned by their
 * content, and per replay only the small shell that loads them and streams the events (sinks/player-page.ts).
 */
import { createHash } from 'node:crypto';
import type { ReplayAssets } from '../../sinks/assets.js';
import { playerAssets, playerShell } from '../../sinks/player-page.js';

/**
 * The replay page's policy, sent as a header besides the shell's own `<meta>`: scripts and fetches only from this
 * server, styles from it or inline (rrweb styles the replay inline), images, fonts and media only data:/blob:
 * (canvas frames), the replay's iframe only about:/blob:, and the page framed by nobody.
 */
export const SHELL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self'",
  'img-src data: blob:',
  'font-src data: blob:',
  'media-src data: blob:',
  "frame-src 'self' about: blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface SharedPlayer {
  /** First 16 hex digits of the SHA-256 of the files: a new version of the player gets new URLs. */
  version: string;
  files: Readonly<Record<string, { body: Buffer; type: string }>>;
  /** The replay page of one replay; with `assets`, its captured assets are served from `/assets/<sha256>`. */
  shell(title: string, eventsUrl: string, assets?: ReplayAssets): string;
}

export function sharedPlayer(): SharedPlayer {
  const { files } = playerAssets();
  const hash = createHash('sha256');
  for (const name of Object.keys(files).sort()) hash.update(name).update(files[name]!.body);
  const version = hash.digest('hex').slice(0, 16);
  return {
    version,
    files,
    shell: (title, eventsUrl, assets) =>
      playerShell({
        title,
        eventsUrl,
        assetBase: `/player/${version}/`,
        back: '/',
        ...(assets !== undefined ? { captured: { assets, base: '/assets/' } } : {}),
      }),
  };
}
