/**
 * The player's options (named like rrweb-player's props): from the page's settings (`options` in the config block,
 * given to `playerPage`/`playerShell` by the library), then the page's URL, which wins (`?width=`, `?height=`,
 * `?speed=`, `?autoplay=0` or `?paused`, `?controls=0`, `?skip=0`). Both are checked here: a size or speed out of
 * range is clamped, anything unreadable or unknown is ignored, so that no URL can break the page.
 */
import { config } from './config.js';
import type { Json } from './events.js';

export interface PlayerOptions {
  /** The replay area's size in CSS px (the replay fitted inside); absent: the window's room. */
  width?: number;
  height?: number;
  /** Start playing once loaded (default true). */
  autoPlay: boolean;
  /** One of `SPEEDS` (default 1). */
  speed: number;
  /** Show the bar, the timeline and the side panel (default true). */
  showController: boolean;
  /** Skip inactive periods (default true). */
  skipInactive: boolean;
}

/** The speed menu's choices. */
const SPEEDS = [0.5, 1, 2, 4, 8, 16];
/** The replay area's size limits, CSS px. */
const MIN_SIZE = 100;
const MAX_SIZE = 10000;

/** A size clamped to [MIN_SIZE, MAX_SIZE], whole px; undefined when `v` is not a finite positive number. */
export function sizeOf(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  return Math.round(Math.max(MIN_SIZE, Math.min(MAX_SIZE, n)));
}

/** The menu's speed nearest to `v` (on a log scale); undefined when `v` is not a finite positive number. */
export function speedOf(v: unknown): number | undefined {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) return undefined;
  let best = SPEEDS[0]!;
  for (let i = 1; i < SPEEDS.length; i++) {
    if (Math.abs(Math.log(SPEEDS[i]! / n)) < Math.abs(Math.log(best / n))) best = SPEEDS[i]!;
  }
  return best;
}

/** A switch: a boolean, or in a URL `1`/`true`/`yes`/`on`/empty and `0`/`false`/`no`/`off`; else undefined. */
function switchOf(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  if (s === '' || s === '1' || s === 'true' || s === 'yes' || s === 'on') return true;
  if (s === '0' || s === 'false' || s === 'no' || s === 'off') return false;
  return undefined;
}

/** Sets on `into` what `from` (the settings' options, or the URL's) gives that is valid. */
function merge(into: PlayerOptions, from: Record<string, Json>): void {
  const width = sizeOf(from.width),
    height = sizeOf(from.height),
    speed = speedOf(from.speed),
    autoPlay = switchOf(from.autoPlay),
    controls = switchOf(from.showController),
    skip = switchOf(from.skipInactive);
  if (width !== undefined) into.width = width;
  if (height !== undefined) into.height = height;
  if (speed !== undefined) into.speed = speed;
  if (autoPlay !== undefined) into.autoPlay = autoPlay;
  if (controls !== undefined) into.showController = controls;
  if (skip !== undefined) into.skipInactive = skip;
}

/** The options of this page: defaults, then the settings' `options`, then the URL's parameters. */
function readOptions(fromConfig: Json, search: string): PlayerOptions {
  const options: PlayerOptions = { autoPlay: true, speed: 1, showController: true, skipInactive: true };
  if (fromConfig && typeof fromConfig === 'object' && !Array.isArray(fromConfig)) merge(options, fromConfig);
  const q = new URLSearchParams(search);
  const fromUrl: Record<string, Json> = {
    width: q.get('width'),
    height: q.get('height'),
    speed: q.get('speed'),
    autoPlay: q.has('paused') ? 'false' : q.get('autoplay'),
    showController: q.get('controls'),
    skipInactive: q.get('skip'),
  };
  merge(options, fromUrl);
  return options;
}

/** This page's options (the player changes `speed`, `skipInactive`, `width` and `height` as they are set). */
export const options: PlayerOptions = readOptions(config.options, location.search);
