// Finding files that ship beside the code (migrations, the built renderer) from wherever the code
// runs: the TypeScript source, the electron-vite bundle in out/, or an installed package; and
// telling whether one folder lies inside another.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The first `<dir>/<relative>` where `<dir>` is the running script's folder or the working directory, or one of their parents. */
export function findUpwards(relative: string, marker = relative): string | null {
  const starts: string[] = [];
  if (process.argv[1]) {
    try {
      starts.push(path.dirname(realpathSync(process.argv[1])));
    } catch {
      // The script path may not exist (node -e); the working directory is tried next.
    }
  }
  starts.push(process.cwd());
  for (const start of starts) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (existsSync(path.join(dir, marker))) return path.join(dir, relative);
      if (path.dirname(dir) === dir) break;
    }
  }
  return null;
}

/** Whether `folder` is `parent` itself or lies anywhere inside it (both resolved first). */
export function isSameOrInside(folder: string, parent: string): boolean {
  const relative = path.relative(path.resolve(parent), path.resolve(folder));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
