import { describe, expect, it } from 'vitest';
import { parseTrustedProxies, trustedPeer, trustProxyOption } from './trusted-proxies';

describe('trusted proxies', () => {
  it('parses addresses and CIDRs, and refuses anything else naming the entry', () => {
    expect(parseTrustedProxies(' 10.0.0.5 ,10.1.0.0/16,fd00::/8')).toEqual([
      { address: '10.0.0.5', prefix: 32, family: 'ipv4' },
      { address: '10.1.0.0', prefix: 16, family: 'ipv4' },
      { address: 'fd00::', prefix: 8, family: 'ipv6' },
    ]);
    expect(parseTrustedProxies('')).toEqual([]);
    for (const bad of ['10.0.0.0/33', 'fd00::/129', 'proxy.local', '10.0.0.1/8/8', '10.0.0.1/x'])
      expect(() => parseTrustedProxies(bad)).toThrow(JSON.stringify(bad));
  });

  it('matches peers, IPv4-mapped ones as IPv4; none configured trusts nobody', () => {
    const trusted = trustedPeer(parseTrustedProxies('10.1.0.0/16,fd00::/8'));
    expect(trusted('10.1.2.3')).toBe(true);
    expect(trusted('::ffff:10.1.2.3')).toBe(true);
    expect(trusted('10.2.0.1')).toBe(false);
    expect(trusted('fd12::1')).toBe(true);
    expect(trusted('fe80::1')).toBe(false);
    expect(trusted(undefined)).toBe(false);
    expect(trustedPeer([])('10.1.2.3')).toBe(false);
    expect(trustProxyOption([])).toBe(false);
    expect(trustProxyOption(parseTrustedProxies('10.0.0.5'))).toEqual(['10.0.0.5/32']);
  });
});
