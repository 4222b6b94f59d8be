// JSON that Titular stored in a text column (a lookup's answer, an audit entry's details, a key's IP
// whitelist, a directory account's holders, a setting), read back. Titular writes valid JSON, but a
// cell can still come back as text that is not: written by another tool, or cut by a disk fault that
// left SQLite's pages valid. One such cell must not fail every read around it (a whole history page,
// the audit trail, the key list, every lookup): each reader decides what an unreadable cell means for
// it, and the places that read one are listed in the README ("Other stored cells that cannot be read").

/** What `storedJson` gives for a cell whose text is not JSON. */
export const UNREADABLE: unique symbol = Symbol('unreadable stored JSON');

/** The cell's JSON value, or UNREADABLE. */
export function storedJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return UNREADABLE;
  }
}

/**
 * What an object cell that cannot be read stands for: still an object, so that whoever reads
 * `.holders` or `.prefix` of it keeps working, and says plainly what happened.
 */
export const DAMAGED: Readonly<{ damaged: true }> = Object.freeze({ damaged: true });

/** The cell as a JSON object, or DAMAGED when its text is not one (not JSON, or an array, a scalar, null). */
export function storedObject(text: string): Record<string, unknown> {
  const value = storedJson(text);
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  return DAMAGED;
}

/** Whether a value is the marker storedObject gives for a cell it cannot read (the same object, not a look-alike). */
export function isDamaged(value: unknown): boolean {
  return value === DAMAGED;
}

/** A record Titular needs to answer a request, stored but no longer readable: a GE500 in words. */
export class DamagedRecordError extends Error {
  override name = 'DamagedRecordError';
  /** `publicMessage` is what the client is told; `message` adds the record's id, for the fault log. */
  constructor(
    readonly publicMessage: string,
    recordId: string,
  ) {
    super(`${publicMessage} (record ${recordId})`);
  }
}
