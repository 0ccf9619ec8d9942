/**
 * Every attribute and property by which recorded HTML, SVG or MathML can fetch or run, taken from the
 * specifications (docs/PLAYER.md cites them), as elements for test/player/player-defences.test.ts to play: each
 * vector's URL is `url(name)`, a path of a loopback server that counts what reaches it.
 *
 * `live`: the Chromium the tests run fetches it from the replay when neither the sanitizer nor the CSP is there —
 * what shows the vector is a real one. The others are in the list all the same and must fetch nothing either: those
 * that fetch only on a user's action (a link's `ping`, a form's `action`), those this Chromium does not fetch
 * (MathML `mglyph`, an external `fill` or `filter` paint server, `<use>` of another document), and the animations,
 * which Chromium runs in a page of their own (`<set attributeName="href" to=…>` fetches there) but not in the
 * replay's rebuilt frame: for those the sanitizer's run checks that no URL is left in the document.
 */

/** A serialized element as rrweb records it (ids are given when a document is built of them). */
export interface VectorElement {
  tagName: string;
  attributes: Record<string, string>;
  childNodes?: VectorNode[];
  isSVG?: true;
}
/** A text node. */
export interface VectorText {
  text: string;
}
export type VectorNode = VectorElement | VectorText;

export interface Vector {
  name: string;
  /** Where the attribute is specified. */
  spec: string;
  live: boolean;
  element: (url: (name: string) => string) => VectorElement;
}

const html = (tagName: string, attributes: Record<string, string>, childNodes: VectorNode[] = []): VectorElement => ({
  tagName,
  attributes,
  childNodes,
});
const svg = (tagName: string, attributes: Record<string, string>, childNodes: VectorNode[] = []): VectorElement => ({
  tagName,
  attributes,
  childNodes,
  isSVG: true,
});
/** An `<svg>` of 40×40 holding `children`. */
const inSvg = (...children: VectorElement[]): VectorElement =>
  svg('svg', { width: '40', height: '40', viewBox: '0 0 40 40' }, children);
const shape = (attributes: Record<string, string>, children: VectorElement[] = []): VectorElement =>
  inSvg(svg('rect', { width: '40', height: '40', ...attributes }, children));

const HTML = 'HTML Standard, index of attributes';
const SVG_PRESENTATION = 'SVG 2 §6.6 presentation attributes';
const SVG_LINKING = 'SVG 2 §16.1.3 href';
const SMIL = 'SVG 2 §19.2 / SMIL Animation §3.2';

export const VECTORS: readonly Vector[] = [
  // HTML: the URL-valued attributes of the HTML Standard's attribute index.
  { name: 'img-src', spec: `${HTML}: img src`, live: true, element: (u) => html('img', { src: u('img-src') }) },
  {
    name: 'img-srcset',
    spec: `${HTML}: img srcset`,
    live: true,
    element: (u) => html('img', { srcset: `${u('img-srcset')} 1x` }),
  },
  {
    name: 'source-srcset',
    spec: `${HTML}: source srcset`,
    live: true,
    element: (u) => html('picture', {}, [html('source', { srcset: `${u('source-srcset')} 1x` }), html('img', {})]),
  },
  {
    name: 'video-poster',
    spec: `${HTML}: video poster`,
    live: true,
    element: (u) => html('video', { poster: u('video-poster'), width: '40', height: '40' }),
  },
  {
    name: 'video-src',
    spec: `${HTML}: video src`,
    live: true,
    element: (u) => html('video', { src: u('video-src'), preload: 'auto' }),
  },
  {
    name: 'audio-src',
    spec: `${HTML}: audio src`,
    live: true,
    element: (u) => html('audio', { src: u('audio-src'), preload: 'auto' }),
  },
  {
    name: 'video-source-src',
    spec: `${HTML}: source src`,
    live: true,
    element: (u) => html('video', { preload: 'auto' }, [html('source', { src: u('video-source-src') })]),
  },
  {
    name: 'track-src',
    spec: `${HTML}: track src`,
    live: false,
    element: (u) => html('video', {}, [html('track', { src: u('track-src'), default: '' })]),
  },
  {
    name: 'input-image-src',
    spec: `${HTML}: input src`,
    live: true,
    element: (u) => html('input', { type: 'image', src: u('input-image-src') }),
  },
  {
    name: 'link-stylesheet',
    spec: `${HTML}: link href`,
    live: true,
    element: (u) => html('link', { rel: 'stylesheet', href: u('link-stylesheet') }),
  },
  {
    name: 'link-preload-imagesrcset',
    spec: `${HTML}: link imagesrcset`,
    live: true,
    element: (u) => html('link', { rel: 'preload', as: 'image', imagesrcset: `${u('link-preload-imagesrcset')} 1x` }),
  },
  {
    name: 'link-prefetch',
    spec: `${HTML}: link href`,
    live: true,
    element: (u) => html('link', { rel: 'prefetch', href: u('link-prefetch') }),
  },
  {
    name: 'table-background',
    spec: `${HTML} §15.3.10 (obsolete, still rendered): background`,
    live: true,
    element: (u) => html('table', { background: u('table-background'), width: '40', height: '40' }),
  },
  {
    name: 'iframe-src',
    spec: `${HTML}: iframe src`,
    live: true,
    element: (u) => html('iframe', { src: u('iframe-src') }),
  },
  {
    name: 'iframe-srcdoc',
    spec: `${HTML}: iframe srcdoc`,
    live: true,
    element: (u) => html('iframe', { srcdoc: `<img src="${u('iframe-srcdoc')}">` }),
  },
  {
    name: 'object-data',
    spec: `${HTML}: object data`,
    live: true,
    element: (u) => html('object', { data: u('object-data') }),
  },
  { name: 'embed-src', spec: `${HTML}: embed src`, live: true, element: (u) => html('embed', { src: u('embed-src') }) },
  {
    name: 'script-src',
    spec: `${HTML}: script src`,
    live: false,
    element: (u) => html('script', { src: u('script-src') }),
  },
  {
    name: 'meta-refresh',
    spec: `${HTML}: meta http-equiv=refresh`,
    live: false,
    element: (u) => html('meta', { 'http-equiv': 'refresh', content: `3600;url=${u('meta-refresh')}` }),
  },
  {
    name: 'a-ping',
    spec: `${HTML}: a ping`,
    live: false,
    element: (u) => html('a', { href: u('a-href'), ping: u('a-ping') }),
  },
  {
    name: 'form-action',
    spec: `${HTML}: form action, button formaction`,
    live: false,
    element: (u) =>
      html('form', { action: u('form-action') }, [html('button', { formaction: u('button-formaction') })]),
  },
  {
    name: 'img-attributionsrc',
    spec: 'Attribution Reporting API: attributionsrc',
    live: true,
    element: (u) => html('img', { attributionsrc: u('img-attributionsrc') }),
  },
  {
    name: 'html-style',
    spec: `${HTML}: style (CSS Style Attributes)`,
    live: true,
    element: (u) => html('div', { style: `width:40px;height:40px;background-image:url(${u('html-style')})` }),
  },
  {
    name: 'html-style-uppercase',
    spec: `${HTML}: attribute names are ASCII case-insensitive`,
    live: true,
    element: (u) => html('div', { STYLE: `width:40px;height:40px;background-image:url(${u('html-style-uppercase')})` }),
  },
  // SVG: href on every element that takes one (SVG 2 §16.1.3), its presentation attributes that take a <url>, style.
  {
    name: 'svg-image-href',
    spec: `${SVG_LINKING}: image`,
    live: true,
    element: (u) => inSvg(svg('image', { href: u('svg-image-href'), width: '40', height: '40' })),
  },
  {
    name: 'svg-image-xlink-href',
    spec: `${SVG_LINKING}: xlink:href`,
    live: true,
    element: (u) => inSvg(svg('image', { 'xlink:href': u('svg-image-xlink-href'), width: '40', height: '40' })),
  },
  {
    name: 'svg-feimage',
    spec: 'Filter Effects 1 §9.16 feImage href',
    live: true,
    element: (u) =>
      inSvg(
        svg('filter', { id: 'fe' }, [svg('feImage', { href: u('svg-feimage') })]),
        svg('rect', { width: '40', height: '40', filter: 'url(#fe)' }),
      ),
  },
  {
    name: 'svg-use-href',
    spec: `${SVG_LINKING}: use`,
    live: false,
    element: (u) => inSvg(svg('use', { href: `${u('svg-use-href')}#a` })),
  },
  {
    name: 'svg-script-href',
    spec: `${SVG_LINKING}: script`,
    live: false,
    element: (u) => inSvg(svg('script', { href: u('svg-script-href') })),
  },
  {
    name: 'svg-fill',
    spec: `${SVG_PRESENTATION}: fill`,
    live: false,
    element: (u) => shape({ fill: `url(${u('svg-fill')}#p)` }),
  },
  {
    name: 'svg-stroke',
    spec: `${SVG_PRESENTATION}: stroke`,
    live: true,
    element: (u) => shape({ stroke: `url(${u('svg-stroke')}#p)`, 'stroke-width': '4' }),
  },
  {
    name: 'svg-filter',
    spec: `${SVG_PRESENTATION}: filter`,
    live: false,
    element: (u) => shape({ filter: `url(${u('svg-filter')}#f)` }),
  },
  {
    name: 'svg-mask',
    spec: `${SVG_PRESENTATION}: mask`,
    live: true,
    element: (u) => shape({ mask: `url(${u('svg-mask')}#m)` }),
  },
  {
    name: 'svg-clip-path',
    spec: `${SVG_PRESENTATION}: clip-path`,
    live: true,
    element: (u) => shape({ 'clip-path': `url(${u('svg-clip-path')}#c)` }),
  },
  {
    name: 'svg-marker',
    spec: `${SVG_PRESENTATION}: marker-start, marker-mid, marker-end`,
    live: true,
    element: (u) =>
      inSvg(
        svg('polyline', {
          points: '0,0 20,20 40,0',
          stroke: 'black',
          'marker-start': `url(${u('svg-marker-start')}#k)`,
          'marker-mid': `url(${u('svg-marker-mid')}#k)`,
          'marker-end': `url(${u('svg-marker')}#k)`,
        }),
      ),
  },
  {
    name: 'svg-cursor',
    spec: `${SVG_PRESENTATION}: cursor`,
    live: true,
    element: (u) => shape({ cursor: `url(${u('svg-cursor')}), auto` }),
  },
  {
    name: 'svg-style',
    spec: `${SVG_PRESENTATION}: style`,
    live: true,
    element: (u) => shape({ style: `fill:url(${u('svg-style')}#p)` }),
  },
  {
    name: 'svg-style-element',
    spec: 'SVG 2 §6.3 style element',
    live: true,
    element: (u) =>
      inSvg(
        svg('style', {}, [{ text: `rect{fill:url(${u('svg-style-element')}#p)}` }]),
        svg('rect', { width: '40', height: '40' }),
      ),
  },
  // SVG animation: an animation setting an attribute that holds a URL, or a presentation attribute to a url().
  {
    name: 'smil-set-href',
    spec: `${SMIL}: set to, attributeName href`,
    live: false,
    element: (u) =>
      inSvg(
        svg('image', { width: '40', height: '40' }, [svg('set', { attributeName: 'href', to: u('smil-set-href') })]),
      ),
  },
  {
    name: 'smil-animate-href-values',
    spec: `${SMIL}: animate values, attributeName href`,
    live: false,
    element: (u) =>
      inSvg(
        svg('image', { width: '40', height: '40' }, [
          svg('animate', { attributeName: 'href', values: u('smil-animate-href-values'), dur: '1s', fill: 'freeze' }),
        ]),
      ),
  },
  {
    name: 'smil-animate-fill-values',
    spec: `${SMIL}: animate values, attributeName fill`,
    live: false,
    element: (u) =>
      shape({}, [
        svg('animate', {
          attributeName: 'fill',
          values: `url(${u('smil-animate-fill-values')}#p)`,
          dur: '1s',
          fill: 'freeze',
        }),
      ]),
  },
  {
    name: 'smil-animate-fill-from-to',
    spec: `${SMIL}: animate from, to`,
    live: false,
    element: (u) =>
      shape({}, [
        svg('animate', {
          attributeName: 'fill',
          from: `url(${u('smil-animate-fill-from')}#p)`,
          to: `url(${u('smil-animate-fill-from-to')}#p)`,
          dur: '1s',
          fill: 'freeze',
        }),
      ]),
  },
  {
    name: 'smil-set-fill-to',
    spec: `${SMIL}: set to, attributeName fill`,
    live: false,
    element: (u) => shape({}, [svg('set', { attributeName: 'fill', to: `url(${u('smil-set-fill-to')}#p)` })]),
  },
  {
    name: 'smil-animate-by',
    spec: `${SMIL}: animate by`,
    live: false,
    element: (u) =>
      shape({}, [svg('animate', { attributeName: 'fill', by: `url(${u('smil-animate-by')}#p)`, dur: '1s' })]),
  },
  {
    name: 'smil-animate-motion-mpath',
    spec: `${SMIL}: animateMotion, mpath href`,
    live: false,
    element: (u) =>
      shape({}, [svg('animateMotion', { dur: '1s' }, [svg('mpath', { href: `${u('smil-animate-motion-mpath')}#p` })])]),
  },
  // MathML Core: elements are styled as any (style), and the few that name a URL.
  {
    name: 'mathml-style',
    spec: 'MathML Core §2.1.3 global attributes: style',
    live: true,
    element: (u) =>
      html('math', {}, [
        html('mi', { style: `display:block;width:40px;height:40px;background:url(${u('mathml-style')})` }),
      ]),
  },
  {
    name: 'mathml-mglyph-src',
    spec: 'MathML 3 §3.2.1.2 mglyph src (not in MathML Core)',
    live: false,
    element: (u) => html('math', {}, [html('mglyph', { src: u('mathml-mglyph-src') })]),
  },
  {
    name: 'mathml-href',
    spec: 'MathML 3 §2.1.6 href (not in MathML Core)',
    live: false,
    element: (u) => html('math', { href: u('mathml-href') }, [html('mi', {}, [])]),
  },
];
