// PRESENCE_TRUSTED_PROXIES: the balancers whose word on the client's address is taken. A
// request from one of them has its client address read from X-Forwarded-For (Fastify's
// trustProxy, proxy-addr: the first address, walking back from the peer, that is not itself
// trusted); from anyone else the header is ignored, since a client can write it. `Forwarded`
// (RFC 7239) is never read: a balancer that appends to X-Forwarded-For passes a client's own
// `Forwarded` through untouched, and reading it would let the client choose its address.
// Connections from a trusted proxy carry many clients, so the per-address connection cap
// leaves them alone (address-connections.ts); the per-address request limits count the
// forwarded address instead.
import { BlockList, isIP } from 'node:net';

/** One trusted address or CIDR range, as written (canonical enough for proxy-addr and BlockList). */
export type TrustedProxy = { address: string; prefix: number; family: 'ipv4' | 'ipv6' };

/** Parses a comma-separated list of addresses and CIDRs; throws a one-line message naming the bad entry. */
export function parseTrustedProxies(text: string): TrustedProxy[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((entry) => {
      const [address = '', prefixText, ...rest] = entry.split('/');
      const version = isIP(address);
      const max = version === 6 ? 128 : 32;
      const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
      if (version === 0 || rest.length > 0 || !(prefix >= 0 && prefix <= max)) {
        throw new Error(`${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)`);
      }
      return { address, prefix, family: version === 6 ? 'ipv6' : 'ipv4' };
    });
}

/** The list as Fastify's `trustProxy` takes it (false: trust nobody, read no forwarding header). */
export const trustProxyOption = (proxies: readonly TrustedProxy[]): string[] | false =>
  proxies.length === 0 ? false : proxies.map((p) => `${p.address}/${p.prefix}`);

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** Whether a connection's peer address is one of the trusted proxies (IPv4-mapped IPv6 counts as IPv4). */
export function trustedPeer(proxies: readonly TrustedProxy[]): (address: string | undefined) => boolean {
  if (proxies.length === 0) return () => false;
  const list = new BlockList();
  for (const p of proxies) list.addSubnet(p.address, p.prefix, p.family);
  return (address) => {
    if (!address) return false;
    const v4 = MAPPED.exec(address)?.[1];
    if (v4) return list.check(v4, 'ipv4');
    return list.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
  };
}
