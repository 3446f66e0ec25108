// The client address that per-address limits (failed authentications, redeem attempts) count
// against. An IPv4 address stands for itself (also when it arrives IPv4-mapped, ::ffff:a.b.c.d);
// an IPv6 address stands for its /64, because one host is routinely given a whole /64 and
// could otherwise take a fresh address for every attempt.
import { isIPv6 } from 'node:net';

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (!isIPv6(address)) return null;
  let text = address.split('%')[0] as string; // a zone id names an interface, not a host
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const h = parse(head);
  const t = tail === undefined ? [] : parse(tail);
  return [...h, ...Array<number>(8 - h.length - t.length).fill(0), ...t];
}

export function clientAddress(ip: string): string {
  if (!ip.includes(':')) return ip; // IPv4 (every request asks: skip the IPv6 parser's big regex)
  const groups = ipv6Groups(ip);
  if (!groups) return ip;
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  if (isMapped) {
    const [hi, lo] = [groups[6] as number, groups[7] as number];
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
