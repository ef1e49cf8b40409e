// `npm run dist`: electron-builder (electron-builder.yml), then the Node build of better-sqlite3
// put back. electron-builder rebuilds native modules for Electron's ABI in this project's own
// node_modules; without the second step the headless hub and `npm test` would then fail with
// "compiled against a different Node.js version". Extra arguments go to electron-builder
// (e.g. `npm run dist -- --linux AppImage`). Exits with electron-builder's status.
import { spawnSync } from 'node:child_process';

const windows = process.platform === 'win32';
const run = (command, args) => spawnSync(command, args, { stdio: 'inherit', shell: windows }).status ?? 1;

const built = run(windows ? 'npx.cmd' : 'npx', ['electron-builder', '--config', 'electron-builder.yml', '--publish', 'never', ...process.argv.slice(2)]);
const restored = run(windows ? 'npm.cmd' : 'npm', ['rebuild', 'better-sqlite3']);
if (restored !== 0) console.error('package-app: `npm rebuild better-sqlite3` failed; run it before using the headless hub or the tests.');
process.exit(built || restored);
