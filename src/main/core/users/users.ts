// The organization and its users. One data directory holds one organization.
import { asc, eq, and } from 'drizzle-orm';
import type { Db } from '../db/open';
import { uuidv7 } from '../db/ids';
import { creditBalances, organizations, users } from '../db/schema';
import { TitularError, invalidParameter, stateRefusal } from '../errors';
import type { AuditLog } from '../audit/audit-log';
import { refuseKeyLike } from '../keys/secrets';

export type Role = 'admin' | 'operator';

export interface User {
  id: string;
  orgId: string;
  name: string;
  email: string;
  role: Role;
  createdAt: string;
}

export interface Organization {
  id: string;
  name: string;
}

// These transactions read before they write; the CLI runs them while the server commits lookups,
// so they take the write lock up front (a deferred one would fail with SQLITE_BUSY_SNAPSHOT).
const IMMEDIATE = { behavior: 'immediate' } as const;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function toUser(row: typeof users.$inferSelect): User {
  return { ...row, createdAt: new Date(row.createdAt).toISOString() };
}

export class Users {
  constructor(
    private readonly db: Db,
    private readonly audit: AuditLog,
  ) {}

  organization(): Organization | null {
    return this.db.select({ id: organizations.id, name: organizations.name }).from(organizations).limit(1).get() ?? null;
  }

  /** The organization, or a clear error when `init` has not been run on this data directory. */
  requireOrganization(): Organization {
    const org = this.organization();
    if (!org) throw new TitularError(400, 'INVALID_PARAMETER', 'This data directory is not initialized: run `titular init` first');
    return org;
  }

  /** Creates the organization, its first admin and its empty wallets. Refuses to run twice. */
  initialize(input: { orgName: string; adminName: string; adminEmail: string }): { org: Organization; admin: User } {
    checkInitialization(input);
    const orgName = input.orgName.trim();
    return this.db.transaction((tx) => {
      if (tx.select({ id: organizations.id }).from(organizations).limit(1).get()) {
        throw new TitularError(400, 'INVALID_PARAMETER', 'This data directory is already initialized');
      }
      const now = Date.now();
      const org = { id: uuidv7(), name: orgName };
      tx.insert(organizations).values({ ...org, createdAt: now }).run();
      for (const product of ['cbu', 'informes'] as const) {
        tx.insert(creditBalances).values({ orgId: org.id, product, balance: 0, totalPurchased: 0, totalConsumed: 0 }).run();
      }
      const admin = this.#insert(tx as unknown as Db, org.id, { name: input.adminName, email: input.adminEmail, role: 'admin' }, null);
      return { org, admin };
    }, IMMEDIATE);
  }

  add(orgId: string, input: { name: string; email: string; role: Role }, actorUserId: string | null): User {
    return this.db.transaction((tx) => this.#insert(tx as unknown as Db, orgId, input, actorUserId), IMMEDIATE);
  }

  setRole(orgId: string, userId: string, role: Role, actorUserId: string | null): User {
    return this.db.transaction((tx) => {
      const user = tx.select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, userId))).get();
      if (!user) throw new TitularError(404, 'NOT_FOUND', 'No such user');
      if (user.role === 'admin' && role !== 'admin') {
        const admins = tx.select({ id: users.id }).from(users).where(and(eq(users.orgId, orgId), eq(users.role, 'admin'))).all();
        if (admins.length <= 1) throw stateRefusal('The organization needs at least one admin');
      }
      tx.update(users).set({ role }).where(eq(users.id, userId)).run();
      this.audit.record({ orgId, actorUserId, action: 'user.role_changed', targetType: 'user', targetId: userId, details: { from: user.role, to: role } });
      return toUser({ ...user, role });
    }, IMMEDIATE);
  }

  list(orgId: string): User[] {
    return this.db.select().from(users).where(eq(users.orgId, orgId)).orderBy(asc(users.id)).all().map(toUser);
  }

  get(orgId: string, userId: string): User | null {
    const row = this.db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, userId))).get();
    return row ? toUser(row) : null;
  }

  byEmail(orgId: string, email: string): User | null {
    const row = this.db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.email, email.trim().toLowerCase()))).get();
    return row ? toUser(row) : null;
  }

  #insert(db: Db, orgId: string, input: { name: string; email: string; role: Role }, actorUserId: string | null): User {
    checkNewUser(input);
    const name = input.name.trim();
    const email = input.email.trim().toLowerCase();
    if (db.select({ id: users.id }).from(users).where(and(eq(users.orgId, orgId), eq(users.email, email))).get()) {
      throw stateRefusal(`A user with email ${email} already exists`);
    }
    const row = { id: uuidv7(), orgId, name, email, role: input.role, createdAt: Date.now() };
    db.insert(users).values(row).run();
    this.audit.record({ orgId, actorUserId, action: 'user.created', targetType: 'user', targetId: row.id, details: { email, role: row.role } });
    return toUser(row);
  }
}

/**
 * The first run's form (organization and first admin), checked before anything is created: the
 * startup gate creates the vault only once it passes, so a mistyped email leaves nothing behind.
 */
export function checkInitialization(input: { orgName: string; adminName: string; adminEmail: string }): void {
  if (!input.orgName.trim()) throw invalidParameter('The organization needs a name');
  refuseKeyLike('The organization name', input.orgName);
  checkNewUser({ name: input.adminName, email: input.adminEmail, role: 'admin' });
}

function checkNewUser(input: { name: string; email: string; role: Role }): void {
  if (!input.name.trim()) throw invalidParameter('The user needs a name');
  refuseKeyLike("The user's name", input.name);
  // Before the email's own check, whose message quotes what was typed.
  refuseKeyLike('The email', input.email);
  if (!EMAIL.test(input.email.trim().toLowerCase())) throw invalidParameter(`Not a valid email address: ${input.email}`);
  if (input.role !== 'admin' && input.role !== 'operator') throw invalidParameter('role must be admin or operator');
}
