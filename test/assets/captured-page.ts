/**
 * A small recorded page whose look depends on three captured assets of one origin: an image (blue, 50×30) at its
 * top-left corner, and under it a box whose background image (red, 50×30) comes from its stylesheet.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const BLUE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="50" height="30"><rect width="50" height="30" fill="#36c"/></svg>';
export const RED_SVG = BLUE_SVG.replace('#36c', '#c33');

/** Writes the page's assets (`photo.svg`, `dot.svg`, `style.css`) into `root`. */
export function writeCapturedSite(root: string): void {
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'photo.svg'), BLUE_SVG);
  writeFileSync(join(root, 'dot.svg'), RED_SVG);
  writeFileSync(join(root, 'style.css'), '.x { width: 50px; height: 30px; background: url(dot.svg); }\n');
}

/** A Meta event (400×300) and a full snapshot of the page served at `origin`, then a click at `t0` + 1 s. */
export function capturedPageRecording(origin: string, t0: number): Record<string, unknown>[] {
  const el = (id: number, tagName: string, attributes: Record<string, string>, childNodes: unknown[] = []) => ({
    type: 2,
    id,
    tagName,
    attributes,
    childNodes,
  });
  const html = el(2, 'html', {}, [
    el(3, 'head', {}, [el(4, 'link', { rel: 'stylesheet', href: `${origin}/style.css` })]),
    el(5, 'body', { style: 'margin:0;background:#fff' }, [
      el(6, 'img', { src: `${origin}/photo.svg`, width: '50', height: '30', style: 'display:block' }),
      el(7, 'div', { class: 'x' }),
    ]),
  ]);
  return [
    { type: 4, data: { href: `${origin}/index.html`, width: 400, height: 300 }, timestamp: t0 },
    {
      type: 2,
      data: { node: { type: 0, id: 1, childNodes: [html] }, initialOffset: { top: 0, left: 0 } },
      timestamp: t0 + 10,
    },
    { type: 3, data: { source: 2, type: 1, id: 6, x: 1, y: 1 }, timestamp: t0 + 1000 },
  ];
}
