// `titular restore FOLDER`, driven as a process the way an admin runs it: a backup goes back in place
// (balances, keys revealed with its key file, audit), the data it replaces is moved aside whole and
// opens on its own, a running server on the data directory or anything that is not a whole backup
// is refused with nothing changed, and a damaged data directory — what a restore is for — is repaired.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServer } from './support/processes';
import { canMountSmallDisk, mountSmallDisk } from './support/small-disk';

/** A dozen CLI processes per test: seconds alone, far more on the loaded CI machine. */
const TIMEOUT_MS = 120_000;
const PASSPHRASE = 'restore passphrase 1';
const work = mkdtempSync(path.join(os.tmpdir(), 'titular-restore-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let folders = 0;
/** A path in this test's scratch folder, not created. */
const place = (name: string) => path.join(work, `${++folders}-${name}`);

const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { timeoutMs: 40_000, env });
async function ok(args: string[], env: Record<string, string> = {}): Promise<string> {
  const run = await cli(args, env);
  expect(run.code, `titular ${args.join(' ')}\n${run.stderr}`).toBe(0);
  return run.stdout;
}

async function initialized(env: Record<string, string> = {}): Promise<string> {
  const dataDir = place('data');
  await ok(['init', '--org', 'Beta SRL', '--admin-name', 'Bea', '--admin-email', 'bea@beta.test', '--data-dir', dataDir], env);
  await ok(['credits', 'add', '--product', 'cbu', '--amount', '100', '--reference', 'first', '--data-dir', dataDir], env);
  return dataDir;
}

async function cbuBalance(dataDir: string, env: Record<string, string> = {}): Promise<number> {
  const shown = JSON.parse(await ok(['credits', 'show', '--json', '--data-dir', dataDir], env)) as { balances: { productSlug: string; balance: number }[] };
  return shown.balances.find((b) => b.productSlug === 'cbu')!.balance;
}

/** Every file in a folder with its size and modification time: "nothing changed" means this is equal. */
function fingerprint(dir: string): Record<string, string> {
  if (!existsSync(dir)) return {};
  return Object.fromEntries(readdirSync(dir).map((name) => {
    const stat = statSync(path.join(dir, name));
    return [name, `${stat.size}@${stat.mtimeMs}`];
  }));
}

/** Folders beside the data directory that a restore moved data into. */
const asideOf = (dataDir: string) => readdirSync(path.dirname(dataDir)).filter((name) => name.startsWith(`${path.basename(dataDir)}-antes-de-restaurar-`)).map((name) => path.join(path.dirname(dataDir), name));

describe('titular restore', () => {
  it('puts a backup back: balances and keys as they were, revealed with its key file; the replaced data is moved aside whole; audited', async () => {
    const dataDir = await initialized();
    const created = JSON.parse(await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'balance', '--json', '--data-dir', dataDir])) as { id: string; key: string };
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', dataDir]);
    // What happens after the backup: the restore takes it away again.
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '50', '--reference', 'after', '--data-dir', dataDir]);
    await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--data-dir', dataDir]);
    const before = fingerprint(backup);

    const restored = await cli(['restore', backup, '--data-dir', dataDir]);
    expect(restored.code, restored.stderr).toBe(0);
    const [aside] = asideOf(dataDir);
    expect(restored.stdout).toContain(`Restored ${backup} into ${dataDir} (organization Beta SRL).`);
    expect(restored.stdout).toContain(`The data it replaced is in ${aside}: move it back to undo the restore.`);
    expect(fingerprint(backup)).toEqual(before); // the backup itself is read, never changed

    expect(await cbuBalance(dataDir)).toBe(100);
    const keys = JSON.parse(await ok(['keys', 'list', '--json', '--data-dir', dataDir])) as { keys: { id: string }[] };
    expect(keys.keys.map((k) => k.id)).toEqual([created.id]);
    expect((JSON.parse(await ok(['keys', 'show', created.id, '--json', '--data-dir', dataDir])) as { key: string }).key).toBe(created.key);
    expect(statSync(path.join(dataDir, 'titular.db')).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.restoring'))).toEqual([]);

    // The data it replaced is a data directory of its own: the 150 credits and both keys.
    expect(readdirSync(aside!).sort()).toEqual(expect.arrayContaining(['master.key', 'titular.db']));
    expect(statSync(aside!).mode & 0o777).toBe(0o700);
    expect(await cbuBalance(aside!)).toBe(150);

    const db = new Database(path.join(dataDir, 'titular.db'), { readonly: true });
    try {
      const entry = db.prepare("SELECT actor_user_id AS actor, details FROM audit_log WHERE action = 'data.restored'").get() as { actor: string | null; details: string };
      expect(JSON.parse(entry.details)).toEqual({ from: backup, previous: aside });
      expect(entry.actor).not.toBeNull();
    } finally {
      db.close();
    }
  }, TIMEOUT_MS);

  it('is refused while a server has the data directory open, and changes nothing', async () => {
    const dataDir = await initialized();
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', dataDir]);
    const server = await startServer(['--port', '0', '--data-dir', dataDir]);
    try {
      const before = fingerprint(dataDir);
      const refused = await cli(['restore', backup, '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`titular: Titular is using ${dataDir} (the desktop, a server or another command): close it, then restore`);
      expect(fingerprint(dataDir)).toEqual(before);
      expect(asideOf(dataDir)).toEqual([]);
      expect(server.child.exitCode).toBeNull(); // still serving, untouched
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Closed, the same restore goes through.
    expect((await cli(['restore', backup, '--data-dir', dataDir])).code).toBe(0);
  }, TIMEOUT_MS);

  it('refuses what is not a whole backup, and the data directory itself, naming why; nothing changes', async () => {
    const dataDir = await initialized();
    const good = place('backup');
    await ok(['backup', good, '--data-dir', dataDir]);

    const empty = place('empty');
    mkdirSync(empty);
    const unfinished = place('unfinished');
    mkdirSync(unfinished);
    writeFileSync(path.join(unfinished, 'titular.db.partial'), 'half');
    const garbage = place('garbage');
    mkdirSync(garbage);
    writeFileSync(path.join(garbage, 'titular.db'), 'this is not a database, but it is long enough to look like a header at first'.repeat(20));
    const keyless = place('keyless');
    mkdirSync(keyless);
    copyFileSync(path.join(good, 'titular.db'), path.join(keyless, 'titular.db'));
    const inside = path.join(dataDir, 'copia');
    mkdirSync(inside);

    const missing = place('missing');
    const file = place('a-file');
    writeFileSync(file, 'not a folder');
    const cases: [string, RegExp | string][] = [
      [missing, `titular: ${missing} does not exist: name the folder of a backup (made by \`titular backup\` or Ajustes)\n`],
      [file, /is not a folder/],
      [empty, /holds no Titular backup \(no titular\.db\)/],
      [unfinished, /holds an unfinished backup \(only \.partial files\): make a new one/],
      [garbage, /is not a readable Titular database/],
      [keyless, /lacks master\.key, which this backup's vault is protected by/],
      [dataDir, /must be separate folders, neither inside the other/],
      [inside, /must be separate folders, neither inside the other/],
      [path.dirname(dataDir), /must be separate folders, neither inside the other/],
    ];
    const before = fingerprint(dataDir);
    for (const [folder, reason] of cases) {
      const refused = await cli(['restore', folder, '--data-dir', dataDir]);
      expect(refused.code, folder).toBe(1);
      expect(refused.stderr, folder).toMatch(reason);
    }
    expect(fingerprint(dataDir)).toEqual(before);
    expect(asideOf(dataDir)).toEqual([]);

    const usage = await cli(['restore', '--data-dir', dataDir]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('Missing FOLDER: titular restore FOLDER');
    expect((await cli(['restore', good, '--as', 'bea@beta.test', '--data-dir', dataDir])).code).toBe(2);
  }, TIMEOUT_MS);

  // Mounting a small tmpfs needs root, as on this project's CI machine; elsewhere this is skipped.
  it.skipIf(!canMountSmallDisk)('onto a disk without room for it: said as such, with the size to make room for, and nothing left behind', async () => {
    const source = await initialized();
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', source]);
    const size = statSync(path.join(backup, 'titular.db')).size;
    const disk = mountSmallDisk(Math.floor(size / 1024 / 2))!;
    try {
      const dataDir = path.join(disk.dir, 'data');
      const run = await cli(['restore', backup, '--data-dir', dataDir]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`There is not enough free space in ${dataDir} to restore: the backup's database takes about ${(size / 1e6).toFixed(1)} MB; nothing was changed`);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      disk.unmount();
    }
  }, TIMEOUT_MS);

  // A data directory that is a disk of its own (a Docker volume, a mounted partition): the data it
  // replaces cannot be moved beside it, on the disk above. It used to fail half-way with a raw `EXDEV:
  // cross-device link not permitted, rename …`, leaving an empty folder there. Root only, to mount.
  it.skipIf(!canMountSmallDisk)('into a data directory that is a mount point: refused before anything changes, saying how to restore there', async () => {
    const source = await initialized();
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', source]);
    const disk = mountSmallDisk(4096)!;
    try {
      const dataDir = disk.dir;
      await ok(['init', '--org', 'Otra SA', '--admin-name', 'Otra', '--admin-email', 'otra@otra.test', '--data-dir', dataDir]);
      const before = fingerprint(dataDir);
      const refused = await cli(['restore', backup, '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trimEnd()).toBe(
        `titular: The data directory ${dataDir} is a disk of its own (a mount point), and restore moves the data it replaces into a new folder beside it (${path.basename(dataDir)}-antes-de-restaurar-…), on another disk, where files cannot be moved: ` +
          'move titular.db (with its -wal and -shm files) and master.key out of it into a folder of your own, then restore into the emptied data directory; nothing was changed',
      );
      expect(fingerprint(dataDir)).toEqual(before);
      expect(asideOf(dataDir)).toEqual([]);
      // The way the sentence gives: the data moved out by hand, the restore into the emptied folder.
      const mine = place('moved-out');
      mkdirSync(mine);
      for (const name of readdirSync(dataDir)) copyFileSync(path.join(dataDir, name), path.join(mine, name));
      for (const name of readdirSync(dataDir)) rmSync(path.join(dataDir, name));
      expect((await cli(['restore', backup, '--data-dir', dataDir])).code).toBe(0);
      expect(await cbuBalance(dataDir)).toBe(100);
    } finally {
      disk.unmount();
    }
  }, TIMEOUT_MS);

  // Refused by the file system after the checks (here an immutable key file, `chattr +i`; an ACL or a
  // security module alike): what was already moved aside goes back, and the error is said in words.
  it.skipIf(process.getuid?.() !== 0)('refused part-way by the file system: the data already moved aside is put back; said in words (root only, where chattr works)', async () => {
    const dataDir = await initialized();
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', dataDir]);
    const key = path.join(dataDir, 'master.key');
    if (spawnSync('chattr', ['+i', key]).status !== 0) return; // no chattr, or a file system without it (tmpfs)
    try {
      const before = fingerprint(dataDir);
      const refused = await cli(['restore', backup, '--data-dir', dataDir]);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trimEnd()).toBe(`titular: The restore into ${dataDir} failed (permission denied: ${key}): nothing was changed`);
      expect(fingerprint(dataDir)).toEqual(before);
      expect(asideOf(dataDir)).toEqual([]);
    } finally {
      spawnSync('chattr', ['-i', key]);
    }
  }, TIMEOUT_MS);

  it('repairs a damaged data directory: the unreadable database is moved aside and the backup opens', async () => {
    const dataDir = await initialized();
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', dataDir]);
    writeFileSync(path.join(dataDir, 'titular.db'), Buffer.alloc(8192, 7));
    expect((await cli(['credits', 'show', '--data-dir', dataDir])).code).toBe(1);

    const restored = await cli(['restore', backup, '--data-dir', dataDir, '--json']);
    expect(restored.code, restored.stderr).toBe(0);
    const result = JSON.parse(restored.stdout) as { previous: string; organization: string; protection: string };
    expect(result).toMatchObject({ organization: 'Beta SRL', protection: 'keyfile' });
    expect(statSync(path.join(result.previous, 'titular.db')).size).toBe(8192);
    expect(await cbuBalance(dataDir)).toBe(100);
  }, TIMEOUT_MS);

  it('into a new data directory (another computer): nothing set aside; a passphrase vault opens with its passphrase', async () => {
    const env = { TITULAR_PASSPHRASE: PASSPHRASE };
    const dataDir = await initialized(env);
    const created = JSON.parse(await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'balance', '--json', '--data-dir', dataDir], env)) as { id: string; key: string };
    const backup = place('backup');
    await ok(['backup', backup, '--data-dir', dataDir], env);
    expect(readdirSync(backup)).toEqual(['titular.db']);

    const elsewhere = place('new-computer');
    const restored = await cli(['restore', backup, '--data-dir', elsewhere]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('The data directory held no data before.');
    expect(asideOf(elsewhere)).toEqual([]);
    expect(statSync(elsewhere).mode & 0o777).toBe(0o700);
    expect(await cbuBalance(elsewhere, env)).toBe(100);
    expect((JSON.parse(await ok(['keys', 'show', created.id, '--json', '--data-dir', elsewhere], env)) as { key: string }).key).toBe(created.key);
    const wrong = await cli(['credits', 'show', '--data-dir', elsewhere], { TITULAR_PASSPHRASE: 'another passphrase' });
    expect(wrong.code).toBe(1);
  }, TIMEOUT_MS);
});
