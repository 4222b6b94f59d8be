// Append-only audit trail: who did what to keys, users, credits and settings. Details never hold secrets.
import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../db/open';
import { uuidv7 } from '../db/ids';
import { auditLog, users } from '../db/schema';
import { storedObject } from '../db/stored-json';

export interface AuditEvent {
  orgId: string;
  actorUserId: string | null;
  action: string;
  targetType: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  action: string;
  targetType: string;
  targetId: string | null;
  details: Record<string, unknown>;
  createdAt: string;
  actor: { id: string; name: string; email: string } | null;
}

export class AuditLog {
  constructor(private readonly db: Db) {}

  record(event: AuditEvent): void {
    this.db
      .insert(auditLog)
      .values({
        id: uuidv7(),
        orgId: event.orgId,
        actorUserId: event.actorUserId,
        action: event.action,
        targetType: event.targetType,
        targetId: event.targetId ?? null,
        details: JSON.stringify(event.details ?? {}),
        createdAt: Date.now(),
      })
      .run();
  }

  list(orgId: string, options: { targetType?: string; limit?: number } = {}): AuditEntry[] {
    const rows = this.db
      .select({ entry: auditLog, actor: { id: users.id, name: users.name, email: users.email } })
      .from(auditLog)
      .leftJoin(users, eq(users.id, auditLog.actorUserId))
      .where(and(eq(auditLog.orgId, orgId), options.targetType ? eq(auditLog.targetType, options.targetType) : undefined))
      .orderBy(desc(auditLog.id))
      .limit(options.limit ?? 100)
      .all();
    return rows.map(({ entry, actor }) => ({
      id: entry.id,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      // An entry whose details cannot be read is listed with them as { damaged: true } (stored-json.ts).
      details: storedObject(entry.details),
      createdAt: new Date(entry.createdAt).toISOString(),
      actor: actor?.id ? { id: actor.id, name: actor.name ?? '', email: actor.email ?? '' } : null,
    }));
  }
}
