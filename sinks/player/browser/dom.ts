/** The page's elements the player uses (written by `body()` in sinks/player-page.ts), looked up once. */

function byId<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

export const ui = {
  play: byId<HTMLButtonElement>('play'),
  seek: byId<HTMLInputElement>('seek'),
  speed: byId<HTMLSelectElement>('speed'),
  skip: byId<HTMLInputElement>('skip'),
  fullscreen: byId<HTMLButtonElement>('fullscreen'),
  status: byId<HTMLSpanElement>('status'),
  /** The timeline strip under the bar. */
  timeline: byId<HTMLDivElement>('timeline'),
  /** The line under the strip: the page shown and the recording's start. */
  info: byId<HTMLDivElement>('info'),
  loading: byId<HTMLDivElement>('loading'),
  /** Where rrweb's Replayer puts the replay (inert). */
  stage: byId<HTMLDivElement>('stage'),
  /** The side list of markers. */
  markers: byId<HTMLOListElement>('markers'),
  /** The side panel's tabs (each names its panel in data-panel) and panels. */
  tabs: byId<HTMLDivElement>('tabs'),
  console: byId<HTMLOListElement>('console'),
  consoleLevel: byId<HTMLSelectElement>('console-level'),
  consoleFilter: byId<HTMLInputElement>('console-filter'),
  network: byId<HTMLOListElement>('network'),
  custom: byId<HTMLOListElement>('custom'),
  /** The selected entry's payload, as text. */
  inspector: byId<HTMLPreElement>('inspector'),
  /** A link to the position shown (`?t=` seconds). */
  moment: byId<HTMLAnchorElement>('moment'),
};
