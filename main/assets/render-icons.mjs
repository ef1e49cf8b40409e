// Renders the app and tray icons from icon.svg and tray.svg with Debian's Chromium (DESIGN.md
// "The machine": never a downloaded browser). Run from the repository root when the SVGs change:
//   node main/assets/render-icons.mjs
// The PNGs are committed; electron-builder derives .icns and .ico from icon.png (1024×1024).
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const dir = path.dirname(new URL(import.meta.url).pathname);
const svg = (name) => fs.readFileSync(path.join(dir, name), 'utf8');

/** [output, svg, size, css filter applied to the black tray glyph] */
const outputs = [
  ['icon.png', 'icon.svg', 1024, ''],
  ['icon-256.png', 'icon.svg', 256, ''],
  // Linux and Windows trays: a light glyph reads on the usual dark panels and taskbars.
  ['tray.png', 'tray.svg', 32, 'invert(0.92)'],
  ['tray@2x.png', 'tray.svg', 64, 'invert(0.92)'],
  // macOS: template images (black + alpha), recoloured by the system.
  ['trayTemplate.png', 'tray.svg', 16, ''],
  ['trayTemplate@2x.png', 'tray.svg', 32, ''],
];

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  for (const [out, source, size, filter] of outputs) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    const body = svg(source).replace(/width="\d+" height="\d+"/, `width="${size}" height="${size}"`);
    await page.setContent(
      `<html><body style="margin:0;background:transparent"><div style="width:${size}px;height:${size}px;filter:${filter || 'none'}">${body}</div></body></html>`,
    );
    await page.screenshot({ path: path.join(dir, out), omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    await page.close();
    console.log(`${out} (${size}×${size})`);
  }
} finally {
  await browser.close();
}
