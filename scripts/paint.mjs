// Opens each URL given in Debian's Chromium as a phone (390 x 844, 3x) over a throttled link —
// 4x slower CPU, 150 ms round trip, 1.6 Mbps down, 750 kbps up, as Lighthouse's "slow 4G" — with
// an empty cache, and prints when its first paint with content (FCP) and its load came, and the
// HTML's size. Run by scripts/bench-paint.sh, beside puppeteer-core.
import puppeteer from 'puppeteer-core';

const urls = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  for (const url of urls) {
    const runs = [];
    for (let i = 0; i < 3; i++) {
      const page = await browser.newPage();
      const cdp = await page.createCDPSession();
      await cdp.send('Network.enable');
      await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 150,
        downloadThroughput: (1.6 * 1024 * 1024) / 8,
        uploadThroughput: (750 * 1024) / 8,
      });
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
      const answer = await page.goto(url, { waitUntil: 'load' });
      const bytes = (await answer.buffer()).length;
      // The paint entry may come after the load event: waited for (buffered), up to 5 s.
      const seen = await page.evaluate(() => new Promise((done) => {
        const nav = performance.getEntriesByType('navigation')[0];
        const answer = (fcp) => done({ fcp, load: nav.loadEventEnd, ttfb: nav.responseStart });
        new PerformanceObserver((list) => {
          const fcp = list.getEntriesByName('first-contentful-paint')[0];
          if (fcp) answer(fcp.startTime);
        }).observe({ type: 'paint', buffered: true });
        setTimeout(() => answer(null), 5000);
      }));
      runs.push({ ...seen, bytes });
      await page.close();
    }
    const fcp = runs.map((r) => (r.fcp === null ? 'none' : Math.round(r.fcp))).join(' / ');
    const load = runs.map((r) => Math.round(r.load)).join(' / ');
    const ttfb = runs.map((r) => Math.round(r.ttfb)).join(' / ');
    console.log(`${url}: HTML ${runs[0].bytes} bytes; first byte ${ttfb} ms; first contentful paint ${fcp} ms; load ${load} ms`);
  }
} finally {
  await browser.close();
}
