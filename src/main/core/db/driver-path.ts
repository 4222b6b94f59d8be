// Where better-sqlite3 is, so that a worker thread (the WAL checkpointer, a backup's copy) loads the
// same driver as the main thread, from the bundle (out/main), the TypeScript source (tsx) or vitest.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

let resolvedDriver: string | null | undefined;

/** Where better-sqlite3 is, for the worker to load the same driver; null when it cannot be found. */
export function driverPath(): string | null {
  if (resolvedDriver !== undefined) return resolvedDriver;
  const bases: string[] = [];
  // CommonJS bundle (out/main) or tsx: __filename; ESM (vitest): import.meta.url.
  if (typeof __filename === 'string') bases.push(__filename);
  try {
    const url = import.meta.url;
    if (url) bases.push(fileURLToPath(url));
  } catch {
    // No import.meta in this module format.
  }
  if (process.argv[1]) bases.push(process.argv[1]);
  bases.push(`${process.cwd()}/noop.js`);
  resolvedDriver = null;
  for (const base of bases) {
    try {
      resolvedDriver = createRequire(base).resolve('better-sqlite3');
      break;
    } catch {
      // Try the next base.
    }
  }
  return resolvedDriver;
}
