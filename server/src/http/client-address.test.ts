import { describe, expect, it } from 'vitest';
import { clientAddress } from './client-address';

describe('clientAddress', () => {
  it('an IPv4 address stands for itself, also IPv4-mapped', () => {
    expect(clientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('an IPv6 address stands for its /64, however it is written', () => {
    const net = '2001:db8:85a3:8d3::/64';
    expect(clientAddress('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe(net);
    expect(clientAddress('2001:0db8:85a3:08d3::1')).toBe(net);
    expect(clientAddress('2001:db8:85a3:8d3::ffff:1.2.3.4')).toBe(net);
    expect(clientAddress('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientAddress('::1')).toBe('0:0:0:0::/64');
    expect(clientAddress('2001:db8:85a3:8d4::1')).not.toBe(net);
  });
});
