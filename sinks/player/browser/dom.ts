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
};
