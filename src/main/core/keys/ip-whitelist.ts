// Per-key IP whitelists: IPv4/IPv6 addresses and CIDR ranges, matched with node:net's BlockList.
import { BlockList, isIP } from 'node:net';
import { invalidParameter } from '../errors';

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
