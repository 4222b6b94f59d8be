// Where Titular keeps its data directory, and how durably it writes there. One rule for the desktop
// app, `titular serve` and the CLI, so that a directory set up with one is the one the others open.
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The database inside a data directory. */
export const DATABASE_FILE = 'titular.db';
/** A key-file vault's wrapping key, beside the database (0600). */
export const KEY_FILE = 'master.key';

export const keyFileOf = (dataDir: string): string => path.join(dataDir, KEY_FILE);

/**
 * `--data-dir`, else TITULAR_DATA_DIR, else the user's data folder for this platform. On macOS and
 * Windows that is the `data` folder inside the app's own folder (where the desktop app, named
 * `titular`, also keeps its window's profile: those file systems ignore case), on Linux
 * `$XDG_DATA_HOME/titular`. Each platform's earlier folder is still opened while only it holds data. An empty or relative XDG_DATA_HOME or APPDATA is ignored, as the XDG
 * rules say, rather than making the data directory relative to wherever the command runs.
 */
export function resolveDataDir(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return path.resolve(flag);
  if (env.TITULAR_DATA_DIR) return path.resolve(env.TITULAR_DATA_DIR);
  const home = os.homedir();
  const absolute = (value: string | undefined) => (value && path.isAbsolute(value) ? value : undefined);
  switch (process.platform) {
    case 'darwin': {
      const app = path.join(home, 'Library', 'Application Support', 'Titular');
      return earlierIfOnlyThere(path.join(app, 'data'), app);
    }
    case 'win32': {
      const app = path.join(absolute(env.APPDATA) ?? path.join(home, 'AppData', 'Roaming'), 'Titular');
      return earlierIfOnlyThere(path.join(app, 'data'), app);
    }
    default: {
      // Before the folder was shared, the desktop app kept its data in its own (Electron's userData,
      // `$XDG_CONFIG_HOME/titular`): found here too, so that `serve` and the CLI open what the desktop
      // opens, and an admin told "no data" does not `init` a second organization beside the first.
      const legacy = path.join(absolute(env.XDG_CONFIG_HOME) ?? path.join(home, '.config'), 'titular', 'data');
      return earlierIfOnlyThere(path.join(absolute(env.XDG_DATA_HOME) ?? path.join(home, '.local', 'share'), 'titular'), legacy);
    }
  }
}

/**
 * `current`, unless only `earlier` (where an earlier version kept the data: the app's folder itself
 * on macOS and Windows, the desktop app's `~/.config/titular/data` on Linux) holds a database: data set up there keeps being found.
 */
export function earlierIfOnlyThere(current: string, earlier: string): string {
  const holdsData = (dir: string) => existsSync(path.join(dir, DATABASE_FILE));
  return !holdsData(current) && holdsData(earlier) ? earlier : current;
}

/**
 * `--synchronous` / TITULAR_SYNCHRONOUS: NORMAL (the default) or FULL (an answer only once its writes
 * are on disk), in any letter case, unset or empty meaning NORMAL; null for anything else, which the
 * caller refuses.
 */
export function parseSynchronous(raw: string | undefined): 'NORMAL' | 'FULL' | null {
  const value = (raw?.trim() || 'NORMAL').toUpperCase();
  return value === 'NORMAL' || value === 'FULL' ? value : null;
}
