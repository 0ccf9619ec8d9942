/**
 * `window.player`: the player's programmatic interface for a page that embeds it (same origin) or a test, shaped
 * like rrweb-player's: play, pause, toggle, goto, setSpeed, toggleSkipInactive, setSize, getMetaData,
 * getCurrentTime, getReplayer, and its events, each handler called with `{ payload }`.
 */
import type { Replayer } from 'rrweb';

/** The events a handler can listen to, and their payloads. */
export interface PlayerEventPayloads {
  /** The position, ms from the start (at most 4 times a second while playing, and after each seek). */
  'ui-update-current-time': number;
  /** The position as a fraction of the length, 0–1. */
  'ui-update-progress': number;
  'ui-update-player-state': 'playing' | 'paused';
  /** The replay reached its end. */
  finish: null;
  /** The Replayer started: the methods act from now on. */
  ready: null;
}
export type PlayerEventName = keyof PlayerEventPayloads;
type Handler = (event: { payload: unknown }) => void;

const handlers: Record<PlayerEventName, Handler[]> = {
  'ui-update-current-time': [],
  'ui-update-progress': [],
  'ui-update-player-state': [],
  finish: [],
  ready: [],
};

function eventName(name: unknown): PlayerEventName {
  if (typeof name !== 'string' || !Object.hasOwn(handlers, name)) {
    throw new TypeError('player: no event ' + String(name) + ' (' + Object.keys(handlers).join(', ') + ')');
  }
  return name as PlayerEventName;
}

/** Calls the handlers of `name`; a handler that throws is reported and does not stop the player or the others. */
export function emit<K extends PlayerEventName>(name: K, payload: PlayerEventPayloads[K]): void {
  const list = handlers[name].slice();
  for (let i = 0; i < list.length; i++) {
    try {
      list[i]!({ payload: payload });
    } catch (err) {
      setTimeout(function () {
        throw err;
      }, 0);
    }
  }
}

/** What the interface drives: the player (player.ts). Each method does nothing before the replay starts. */
export interface PlayerControl {
  ready(): boolean;
  play(): void;
  pause(): void;
  toggle(): void;
  /** To `timeOffset` ms from the start (clamped to the replay); then playing or paused as `play` says, else as before. */
  goto(timeOffset: number, play?: boolean): void;
  /** To the menu's speed nearest `speed`. */
  setSpeed(speed: number): void;
  toggleSkipInactive(): void;
  /** The replay area's size in CSS px (clamped; `undefined`: the window's room). */
  setSize(width?: number, height?: number): void;
  getMetaData(): { startTime: number; endTime: number; totalTime: number };
  getCurrentTime(): number;
  getReplayer(): Replayer | null;
}

interface PlayerApi extends PlayerControl {
  addEventListener(name: PlayerEventName, handler: Handler): void;
  removeEventListener(name: PlayerEventName, handler: Handler): void;
}

/** Sets `window.player`. */
export function installApi(control: PlayerControl): void {
  const api: PlayerApi = {
    ready: control.ready,
    play: control.play,
    pause: control.pause,
    toggle: control.toggle,
    goto: function (timeOffset, play) {
      if (typeof timeOffset !== 'number' || !Number.isFinite(timeOffset))
        throw new TypeError('player.goto: timeOffset must be a finite number of ms');
      control.goto(timeOffset, play === undefined ? undefined : !!play);
    },
    setSpeed: control.setSpeed,
    toggleSkipInactive: control.toggleSkipInactive,
    setSize: control.setSize,
    getMetaData: control.getMetaData,
    getCurrentTime: control.getCurrentTime,
    getReplayer: control.getReplayer,
    addEventListener: function (name, handler) {
      if (typeof handler !== 'function') throw new TypeError('player.addEventListener: the handler must be a function');
      handlers[eventName(name)].push(handler);
    },
    removeEventListener: function (name, handler) {
      const list = handlers[eventName(name)];
      const at = list.indexOf(handler);
      if (at >= 0) list.splice(at, 1);
    },
  };
  window.player = Object.freeze(api);
}
