#!/usr/bin/env node
// Opens a `hetps report` page in headless Chromium (Debian's, driven by playwright-core) and
// asks the page itself whether every plot (an <img>) loaded: complete, with a non-zero natural
// width. Then takes a full-page screenshot. Exit status: 0 when everything loaded, 1 naming each broken one, 2 for bad use or
// a browser that does not start.
//   scripts/check-report-in-browser.mjs REPORT_HTML SCREENSHOT_PNG
// CHROMIUM (default /usr/bin/chromium) names the browser.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

const [report, screenshot] = process.argv.slice(2);
if (!report || !screenshot) {
  console.error('usage: check-report-in-browser.mjs REPORT_HTML SCREENSHOT_PNG');
  process.exit(2);
}
if (!existsSync(report)) {
  console.error(`check-report-in-browser: ${report}: no such file`);
  process.exit(2);
}
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`check-report-in-browser: no browser at ${executablePath}; ` +
                'run scripts/install-deps.sh (Debian package chromium) or set CHROMIUM');
  process.exit(2);
}

// --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
let browser;
try {
  browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
} catch (error) {
  console.error(`check-report-in-browser: ${executablePath} did not start: ${error.message}`);
  process.exit(2);
}
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const failedRequests = new Set();
  page.on('requestfailed', (request) => failedRequests.add(request.url()));
  // The report must need nothing but itself: any request off the disk is an error.
  await page.route(/^(?!file:|data:)/, (route) => {
    failedRequests.add(route.request().url());
    return route.abort();
  });
  await page.goto(pathToFileURL(resolve(report)).href, { waitUntil: 'load' });
  const found = await page.evaluate(() => {
    const describe = (element, index) =>
      `${element.tagName.toLowerCase()} #${index + 1}` +
      (element.getAttribute('alt') ? ` ("${element.getAttribute('alt')}")` : '');
    const images = [...document.images];
    return {
      images: images.length,
      broken: images.filter((img) => !img.complete || img.naturalWidth === 0).map(describe),
    };
  });
  await page.screenshot({ path: screenshot, fullPage: true });
  const problems = [...found.broken.map((what) => `${what} did not load`),
                    ...[...failedRequests].map((url) => `request failed or left the disk: ${url}`)];
  if (found.images === 0) problems.push('no plot at all');
  if (problems.length > 0) {
    console.error(`check-report-in-browser: ${report}:\n  ` + problems.join('\n  '));
    process.exitCode = 1;
  } else {
    console.log(`check-report-in-browser: ${report}: all ${found.images} plots loaded; ` +
                `screenshot ${screenshot}`);
  }
} finally {
  await browser.close();
}
