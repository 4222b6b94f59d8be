// Small typed settings kept in the database (so the desktop and the headless server agree).
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/open';
import { settings } from '../db/schema';

const SETTINGS = {
  /** Port of the localhost API in the desktop app. */
  'api.port': z.number().int().min(1024).max(65535).default(8787),
  /** Minutes of inactivity after which the desktop locks the vault (0 = never). */
  'vault.autoLockMinutes': z.number().int().min(0).max(24 * 60).default(15),
  /** The user the desktop signs in as (defaults to the first admin). */
  'desktop.userId': z.string().nullable().default(null),
} as const;

export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<K extends SettingKey> = z.output<(typeof SETTINGS)[K]>;

export class Settings {
  constructor(private readonly db: Db) {}

  get<K extends SettingKey>(key: K): SettingValue<K> {
    const row = this.db.select().from(settings).where(eq(settings.key, key)).get();
    const raw = row ? (JSON.parse(row.value) as unknown) : undefined;
    const parsed = SETTINGS[key].safeParse(raw);
    return (parsed.success ? parsed.data : SETTINGS[key].parse(undefined)) as SettingValue<K>;
  }

  set<K extends SettingKey>(key: K, value: SettingValue<K>): void {
    const valid = SETTINGS[key].parse(value);
    this.db
      .insert(settings)
      .values({ key, value: JSON.stringify(valid) })
      .onConflictDoUpdate({ target: settings.key, set: { value: JSON.stringify(valid) } })
      .run();
  }
}
