import sparticuz from '@sparticuz/chromium'; import { chromium } from 'playwright-core'; const launchChromium = async () => chromium.launch({ executablePath: await sparticuz.executablePath(), args: sparticuz.args.filter(a => !['--single-process','--disable-web-security'].includes(a)), headless: true });
const b = await launchChromium();
const p = await b.newPage();
await p.goto('file:///tmp/vid/x.html'); console.log(await p.evaluate(() => isSecureContext));
console.log(b.version());
const r = await p.evaluate(async () => {
  const out = { has: typeof (globalThis).VideoEncoder };
  const VE = (globalThis).VideoEncoder;
  if (!VE) return out;
  for (const codec of ['avc1.42001f', 'avc1.640028', 'vp8', 'vp09.00.10.08', 'av01.0.04M.08', 'hvc1.1.6.L93.B0']) {
    for (const hw of ['no-preference', 'prefer-software']) {
      try { const s = await VE.isConfigSupported({ codec, width: 1280, height: 800, bitrate: 2e6, framerate: 10, hardwareAcceleration: hw }); out[codec + ' ' + hw] = s.supported; } catch (e) { out[codec + ' ' + hw] = String(e); }
    }
  }
  return out;
});
console.log(r);
await b.close();
