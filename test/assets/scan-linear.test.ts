/**
 * The scanners `--capture-assets` runs over recorded text (CSS of `<style>` elements, style attributes, `_cssText`,
 * fetched stylesheets; `srcset` values) do work linear in their input whatever it holds: 4 MB adversarial inputs
 * (`url(` repeated, unclosed comments, unclosed quotes, …) cost a counted number of steps of at most twice their
 * length, and twice the input costs twice the steps. Ordinary CSS gives the URLs it always gave.
 */
import { describe, expect, test } from 'vitest';
import { AssetUrlCollector, cssUrls, srcsetUrls, type ScanMeter } from '../../src/assets/collect.js';

const SIZE = 4 * 1024 * 1024;

/** `unit` repeated to `size` characters. */
function fill(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** The steps `scan` counts over `unit` repeated to `size` characters. */
function steps(scan: (text: string, meter: ScanMeter) => unknown, unit: string, size: number): number {
  const meter = { steps: 0 };
  scan(fill(unit, size), meter);
  return meter.steps;
}

/** Looks at every character at least once, at most twice (plus a few per token), and twice the text costs twice. */
function expectLinear(scan: (text: string, meter: ScanMeter) => unknown, unit: string): void {
  const n = steps(scan, unit, SIZE);
  expect(n, `${JSON.stringify(unit)}: steps over ${SIZE} characters`).toBeGreaterThanOrEqual(SIZE / 2);
  expect(n, `${JSON.stringify(unit)}: steps over ${SIZE} characters`).toBeLessThanOrEqual(2 * SIZE + 64);
  const half = steps(scan, unit, SIZE / 2);
  expect(n / half, `${JSON.stringify(unit)}: steps at 4 MB over steps at 2 MB`).toBeLessThan(2.1);
}

describe('CSS', () => {
  test.each([
    'url(',
    'URL( ',
    '/* ',
    '/*',
    'url("',
    "url('a",
    '"',
    '"\\',
    "'x",
    'url(a',
    'url(a ',
    'url(a)',
    'url(\\',
    '@import ',
    '@import "',
    "@import 'a.css';",
    'image-set(',
    'image-set("a.png" 1x,',
    '-webkit-image-set(url(',
    '((((',
    'a{background:url(x.png)}',
  ])(
    '%j repeated to 4 MB scans in linear steps',
    (unit) => {
      expectLinear(cssUrls, unit);
    },
    60_000,
  );

  test('4 MB of `url(` in a recorded <style> costs the collector linear steps', () => {
    const css = fill('url(', SIZE);
    const event = Buffer.from(
      JSON.stringify({
        type: 2,
        data: {
          node: {
            type: 0,
            id: 1,
            childNodes: [
              { type: 2, id: 2, tagName: 'style', attributes: {}, childNodes: [{ type: 3, id: 3, textContent: css }] },
              { type: 2, id: 4, tagName: 'div', attributes: { style: css }, childNodes: [] },
              { type: 2, id: 5, tagName: 'link', attributes: { rel: 'stylesheet', _cssText: css }, childNodes: [] },
            ],
          },
        },
      }),
    );
    const meter = { steps: 0 };
    const found: string[] = [];
    new AssetUrlCollector(100, (u) => found.push(u), meter).observe(event);
    expect(found).toEqual([]);
    expect(meter.steps).toBeGreaterThanOrEqual(3 * SIZE);
    expect(meter.steps).toBeLessThanOrEqual(3 * (2 * SIZE + 64));
  }, 60_000);

  test('ordinary CSS: url() quoted or not, @import, image-set(), comments and strings left out', () => {
    expect(cssUrls('@import "nested.css";\n.a { background: url(img.png) }')).toEqual(['nested.css', 'img.png']);
    expect(cssUrls('@import url("deeper.css"); .b { background: URL( \'/deep.png\' ) }')).toEqual([
      'deeper.css',
      '/deep.png',
    ]);
    expect(cssUrls('@font-face { src: url(icons.ttf) format("truetype"); }')).toEqual(['icons.ttf']);
    expect(cssUrls('.q { background: url("a\\"b.png") }')).toEqual(['a"b.png']);
    expect(cssUrls('/* url(no.png) */ .x { background: url(yes.png) } /* unclosed url(z.png)')).toEqual(['yes.png']);
    expect(cssUrls('.c::before { content: "url(no.png)" } .d { background: url() }')).toEqual([]);
    expect(
      cssUrls('.i { background-image: image-set("a.png" 1x, url(b.png) 2x, \'c.avif\' type("image/avif")) }'),
    ).toEqual(['a.png', 'b.png', 'c.avif']);
    expect(cssUrls('.w { background: -webkit-image-set("w.png" 1x) }')).toEqual(['w.png']);
    // A malformed url() (white space or a quote inside, unclosed) references nothing, as in a browser.
    expect(cssUrls('.m { background: url(a b.png) } .n { background: url(ok.png) }')).toEqual(['ok.png']);
  });
});

describe('srcset', () => {
  test.each([',', ' ', 'a', 'a 1x,', ' , ', 'a\u00a0'])(
    '%j repeated to 4 MB scans in linear steps',
    (unit) => {
      expectLinear(srcsetUrls, unit);
    },
    60_000,
  );

  test('candidates: the first word of each comma-separated part', () => {
    expect(srcsetUrls(' a.png 1x,b.png  2x , ,c.png\u00a0100w')).toEqual(['a.png', 'b.png', 'c.png']);
  });
});
