// Per-key IP whitelists: IPv4/IPv6 addresses and CIDR ranges, matched with node:net's BlockList.
import { BlockList, isIP } from 'node:net';
import { invalidParameter } from '../errors';
import { UNREADABLE, storedJson } from '../db/stored-json';

/** Validates and canonicalizes whitelist entries ("10.0.0.0/8", "::1", "192.168.1.7"). */
export function parseWhitelistEntry(raw: string): string {
  const entry = raw.trim();
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) throw invalidParameter(`Not an IP address or CIDR range: ${raw}`);
  if (prefix === undefined) return address;
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : NaN;
  if (!(bits >= 0 && bits <= (family === 4 ? 32 : 128))) throw invalidParameter(`Not a valid CIDR prefix length: ${raw}`);
  return `${address}/${bits}`;
}

export function buildBlockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/** True when `peer` is in the list. An IPv4-mapped IPv6 peer (::ffff:127.0.0.1) matches its IPv4 entry. */
export function addressAllowed(list: BlockList, peer: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer);
  if (mapped?.[1]) return list.check(mapped[1], 'ipv4') || list.check(peer, 'ipv6');
  const family = isIP(peer);
  if (family === 0) return false;
  return list.check(peer, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * A key's stored whitelist (api_keys.ip_whitelist, a JSON array of canonical entries), or null when
 * the cell cannot be read as one (stored-json.ts): not JSON, not an array of valid entries. Such a key
 * is refused from every address, never let in from any (the README's "Other stored cells that cannot be read").
 */
export function storedWhitelist(raw: string): string[] | null {
  const value = storedJson(raw);
  if (value === UNREADABLE || !Array.isArray(value)) return null;
  const entries: string[] = [];
  for (const entry of value) {
    if (typeof entry !== 'string') return null;
    try {
      entries.push(parseWhitelistEntry(entry));
    } catch {
      return null;
    }
  }
  return entries;
}

/** The 403 of a key whose stored whitelist cannot be read. */
export const UNREADABLE_WHITELIST_MESSAGE =
  "This key's IP whitelist cannot be read (it is damaged in Titular's database), so no address may use the key; an admin can revoke it and create a new one";
