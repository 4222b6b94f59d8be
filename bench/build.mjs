// The benchmarks drive the built entry points (out/main/serve.js, out/main/cli.js); this rebuilds
// out/ when it is missing or older than its sources (src/, and drizzle/ whose migrations it applies).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import freshness from '../bin/build-freshness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { upToDateBuild } = freshness;
const BUILT = path.join(ROOT, 'out/main/serve.js');

/** Newest mtime under `dir` (files only). */
function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds out/ unless it is up to date (or `trustExisting` and it exists at all). */
export function ensureBuilt({ trustExisting = false } = {}) {
  const current = () =>
    statSync(BUILT).mtimeMs >= Math.max(newestMtime(path.join(ROOT, 'src')), newestMtime(path.join(ROOT, 'drizzle'))) &&
    // What the `titular` command checks too (package.json among them): it runs the sources otherwise.
    upToDateBuild(ROOT, 'serve') !== null &&
    upToDateBuild(ROOT, 'cli') !== null;
  if (existsSync(BUILT) && (trustExisting || current())) return;
  process.stdout.write('building out/ (electron-vite build)...\n');
  execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
