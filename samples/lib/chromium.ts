/**
 * Headless Chromium for recording the samples and for the tests that look at what a person sees: the binary shipped
 * inside the npm package `@sparticuz/chromium` (so `npm install` is all the set-up a bare machine needs), driven by
 * playwright-core. The package's own flags are kept except the two that weaken a page's security
 * (`--disable-web-security`, `--allow-running-insecure-content`: pages are tested as a normal browser runs them) and
 * `--single-process` (made for AWS Lambda: there, closing one browser context ends the whole browser).
 */
import sparticuz from '@sparticuz/chromium';
import { chromium, type Browser } from 'playwright-core';

const DROPPED_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);

/** The flags Chromium is started with. */
function chromiumArgs(): string[] {
  return sparticuz.args.filter((arg) => !DROPPED_FLAGS.has(arg));
}

/** Starts headless Chromium; the error says why when it cannot start. */
export async function launchChromium(): Promise<Browser> {
  let executablePath: string;
  try {
    executablePath = await sparticuz.executablePath();
  } catch (err) {
    throw new Error(
      `Chromium from @sparticuz/chromium could not be unpacked (run npm install): ${(err as Error).message}`,
      { cause: err },
    );
  }
  try {
    return await chromium.launch({ executablePath, args: chromiumArgs(), headless: true });
  } catch (err) {
    throw new Error(`Chromium (${executablePath}) did not start: ${(err as Error).message}`, { cause: err });
  }
}
