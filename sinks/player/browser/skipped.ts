/**
 * Events rrweb cannot apply: rrweb 2.2 throws on some recorded events (a StyleSheetRule event naming a node that is
 * no `<style>`, such as the document: `getNode(1).rules` is undefined), and an exception in a seek stops the seek —
 * the rest of the replay is never shown, and a video render fails. Each Replayer's `applyIncremental` (the one place
 * every incremental event goes through, playing or seeking) is guarded: such an event is skipped, counted, and the
 * first one reported on the console; the count is the body's `data-skipped` (read by the video render).
 */
import type { Json } from './events.js';

let skipped = 0;

/** Guards `replayer` (a new rrweb Replayer): an incremental event that throws is skipped and counted. */
export function skipUnappliable(replayer: Json): void {
  const apply = replayer.applyIncremental;
  if (typeof apply !== 'function') return;
  replayer.applyIncremental = function (this: unknown, event: Json, isSync: boolean): unknown {
    try {
      return apply.call(this, event, isSync);
    } catch (err) {
      skipped++;
      document.body.setAttribute('data-skipped', String(skipped));
      if (skipped === 1) console.warn('replay: an event rrweb cannot apply was skipped', err);
      return undefined;
    }
  };
}
