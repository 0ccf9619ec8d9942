/**
 * The player's CSS scanner (sinks/player/browser/css-scan.ts), the one pass the sanitizer cleans recorded CSS with:
 * linear work on 4 MB of hostile CSS (`url(` repeated, unclosed comments and strings, `image-set(`), URLs read as
 * the browser reads them, and texts that the browser joins (the texts of one `<style>`) cleaned one by one yet still
 * clean once joined. The same page in Chromium: test/player/hostile-css.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { rewriteCssUrls, scanCss, type CssMeter } from '../../sinks/player/browser/css-scan.js';

const SIZE = 4 * 1024 * 1024;
const fill = (unit: string, size: number): string => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** What the sanitizer does with no captured asset: data: and blob: URLs kept, every other emptied, @import removed. */
const clean = (css: string, meter?: CssMeter): string =>
  rewriteCssUrls(
    css,
    { url: (v) => (v !== undefined && /^\s*(data:|blob:)/i.test(v) ? v : null), atImport: () => '' },
    meter,
  );

/** Every URL the scanner finds in `css` (url() tokens, strings of URL functions, @import). */
function urls(css: string): string[] {
  const found: string[] = [];
  const add = (v: string | undefined): void => {
    if (v) found.push(v);
  };
  scanCss(css, { url: add, string: add, atImport: add });
  return found;
}

describe('cleaning CSS is linear', () => {
  test.each([
    'url(',
    'URL( ',
    'u\\72l(',
    '/* ',
    'url("',
    "url('a",
    '"',
    '"\\',
    '\\',
    'url(a ',
    'url(\\',
    '@import ',
    '@import "',
    'image-set(',
    'image-set("a.png" 1x,',
    '-webkit-image-set(url(',
    '((((',
    'a{background:url(http://x/y.png)}',
  ])('%j repeated to 4 MB: steps at most twice the length, twice the text twice the steps', (unit) => {
    const steps = (size: number): number => {
      const meter = { steps: 0 };
      clean(fill(unit, size), meter);
      return meter.steps;
    };
    const full = steps(SIZE);
    expect(full).toBeGreaterThanOrEqual(SIZE / 2);
    expect(full).toBeLessThanOrEqual(2 * SIZE + 64);
    expect(full / steps(SIZE / 2)).toBeLessThan(2.1);
  });
});

describe('what the browser reads as a URL is what is cleaned', () => {
  test.each([
    ['a{background:url(http://x/1)}', 'a{background:url()}'],
    ['a{background:URL( "http://x/2" )}', 'a{background:URL( "" )}'],
    ['a{background:u\\72l(http://x/3)}', 'a{background:url()}'],
    ['a{background:\\75 rl(http://x/4)}', 'a{background:url()}'],
    ['a{background:image-set("http://x/5" 1x, url(data:image/png;base64,AA) 2x)}', ''],
    ['@import "http://x/6"; a{color:red}', '/**//**/ a{color:red}'],
    ['@\\69mport url(http://x/7) screen; b{}', '/**//**/ b{}'],
    ['@font-face{src:url(http://x/8) format("woff")}', '@font-face{src:url() format("woff")}'],
    ['a{background:url(http://x/9 bad)}', 'a{background:url()}'],
    ['a{background:src("http://x/10")}', 'a{background:src("")}'],
    // An image-set option's type() holds a media type, not a URL: kept.
    [
      'a{background:image-set("http://x/11" 1x type("image/avif"))}',
      'a{background:image-set("" 1x type("image/avif"))}',
    ],
  ])('%j', (css, expected) => {
    const out = clean(css);
    if (expected !== '') expect(out).toBe(expected);
    expect(urls(out).filter((u) => !u.startsWith('data:'))).toEqual([]);
  });

  test('comments and ordinary strings name no URL; data: and blob: URLs are kept', () => {
    const css =
      '/* url(http://x/c) */ a::before{content:"url(http://x/s)"} b{background:url(data:image/gif;base64,R0lG)}' +
      ' c{background:url("blob:null/1")}';
    expect(clean(css)).toBe(
      '/* url(http://x/c) */ a::before{content:"url(http://x/s)"} b{background:url("data:image/gif;base64,R0lG")}' +
        ' c{background:url("blob:null/1")}',
    );
  });

  test('names that only look like url( are not: #url( and 1url( are a hash and a dimension, -url( a function', () => {
    expect(urls('#url(http://x/a) 1url(http://x/b) -url(http://x/c) x-url(http://x/d)')).toEqual([]);
    expect(urls('.url(http://x/e) +url(http://x/f)')).toEqual(['http://x/e', 'http://x/f']);
  });

  test('escapes are read as CSS reads them: a hex escape takes one white space, CR LF as one', () => {
    // `\41\r\n` is one escape: the string goes on to its closing quote, and the url() after it is one.
    expect(urls('a{content:"\\41\r\n" ; background:url(http://x/after)}')).toEqual(['http://x/after']);
    // `\"` in a string does not close it.
    expect(urls('a{content:"\\" url(http://x/in-string)"}')).toEqual([]);
  });
});

describe('texts the browser joins stay clean when joined', () => {
  // A <style> element's texts are cleaned one by one and joined by the browser: whatever one leaves open (a comment,
  // a string, an escape, half a name), the next one is read from a token's start.
  const pairs: [string, string][] = [
    ['a{content:"abc', '"} b{background:url(http://x/1)} c{content:"'],
    ['a{content:"abc', 'x url(http://x/2) y"}'],
    ['a{background:ur', 'l(http://x/3)}'],
    ['@imp', 'ort "http://x/4";'],
    ['a{b:c} /', '* "*/ b{background:url(http://x/5)} "'],
    ['a{content:x\\', '"} b{background:url(http://x/6)} c{content:"'],
    ['a{content:"x\\', '"} b{background:url(http://x/7)} c{content:"'],
    ['/* open', '*/ b{background:url(http://x/8)}'],
    ['a{background:url(data:image/gif;base64,R0lG', '"x) b{background:url(http://x/9)}'],
  ];
  test.each(pairs)('%j + %j', (first, second) => {
    const joined = clean(first) + clean(second);
    expect(urls(joined).filter((u) => !u.startsWith('data:'))).toEqual([]);
  });
});
