// The benchmarks drive the built entry points (out/main/serve.js, out/main/cli.js); this rebuilds
// out/ when it is missing or older than its sources, by the same rule the `titular` command uses
// (bin/build-freshness.js: src/main, src/shared, package.json). drizzle/ is not built in: the
// migrations are read from it at start.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import freshness from '../bin/build-freshness.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const { upToDateBuild } = freshness;
const BUILT = path.join(ROOT, 'out/main/serve.js');

/** Builds out/ unless it is up to date (or `trustExisting` and it exists at all). */
export function ensureBuilt({ trustExisting = false } = {}) {
  const current = () => upToDateBuild(ROOT, 'serve') !== null && upToDateBuild(ROOT, 'cli') !== null;
  if (existsSync(BUILT) && (trustExisting || current())) return;
  process.stdout.write('building out/ (electron-vite build)...\n');
  execFileSync('npx', ['electron-vite', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}
