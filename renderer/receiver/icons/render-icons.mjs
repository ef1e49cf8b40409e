// Renders the web receiver's app icons (PNG) from the SVGs below with Debian's Chromium
// (DESIGN.md "The machine"), into renderer/public/receiver/icons/. Run it after changing a
// design: `node renderer/receiver/icons/render-icons.mjs`. The PNGs are committed.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, '..', '..', 'public', 'receiver', 'icons');

// The console's brand mark (renderer/public/favicon.svg): a white bell on the accent gradient.
const BELL = 'M16 7a6 6 0 0 0-6 6v4.2l-1.7 2.6A1 1 0 0 0 9.1 21h13.8a1 1 0 0 0 .8-1.2L22 17.2V13a6 6 0 0 0-6-6Zm-2.5 15.5a2.5 2.5 0 0 0 5 0Z';
const gradient =
  '<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#6366f1"/><stop offset="1" stop-color="#4338ca"/></linearGradient></defs>';
/** The bell scaled by `scale` around the centre of a 32×32 box (its own centre is about 16,16). */
const bell = (scale, fill = '#fff') => `<g transform="translate(16 16) scale(${scale}) translate(-16 -16.2)"><path d="${BELL}" fill="${fill}"/></g>`;

const icons = {
  // "any": a rounded square, as on a desktop or in a browser's app list.
  icon: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${gradient}<rect width="32" height="32" rx="7" fill="url(#g)"/>${bell(1.02)}</svg>`,
  // "maskable": full bleed; the bell stays inside the central 80% safe zone (W3C manifest, icon masks).
  maskable: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${gradient}<rect width="32" height="32" fill="url(#g)"/>${bell(0.86)}</svg>`,
  // Android's status bar badge: white on transparent, only the shape counts.
  badge: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">${bell(1.6)}</svg>`,
};

const renders = [
  ['icon', 192, 'icon-192.png'],
  ['icon', 512, 'icon-512.png'],
  ['maskable', 192, 'maskable-192.png'],
  ['maskable', 512, 'maskable-512.png'],
  ['maskable', 180, 'apple-touch-icon.png'],
  ['badge', 96, 'badge-96.png'],
];

fs.mkdirSync(out, { recursive: true });
fs.writeFileSync(path.join(here, 'icon.svg'), icons.icon);
fs.writeFileSync(path.join(here, 'maskable.svg'), icons.maskable);
fs.writeFileSync(path.join(here, 'badge.svg'), icons.badge);
const browser = await chromium.launch({
  executablePath: process.env.PUSHHUB_CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  for (const [name, size, file] of renders) {
    await page.setViewportSize({ width: size, height: size });
    const svg = icons[name].replace('<svg ', `<svg width="${size}" height="${size}" `);
    await page.setContent(`<!doctype html><style>html,body{margin:0;background:transparent}svg{display:block}</style>${svg}`);
    await page.screenshot({ path: path.join(out, file), omitBackground: true });
    console.log(`${file} (${size}×${size})`);
  }
} finally {
  await browser.close();
}
