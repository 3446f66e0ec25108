// @vitest-environment node
// The small pure helpers: reading what a person types into Options, and display formats.
import { describe, expect, it } from 'vitest';
import { formatAmount, formatCountdown, shortHex } from '../../src/lib/format';
import { LinkInputError, normaliseServerUrl, originPattern, parseCredential } from '../../src/lib/link';

describe('parseCredential', () => {
  it('reads a link code typed loosely, and a key', () => {
    expect(parseCredential(' k7qm2-xrpk7-qm2xr-pk7qm ')).toEqual({ kind: 'code', code: 'K7QM2XRPK7QM2XRPK7QM' });
    const key = `prs_test_${'a1B2'.repeat(8)}`;
    expect(parseCredential(key)).toEqual({ kind: 'key', key });
  });
  it('refuses anything else with a sentence saying what is expected', () => {
    expect(() => parseCredential('K7QM2XR0')).toThrow(LinkInputError); // 0 is not in the code alphabet
    expect(() => parseCredential('prs_live_short')).toThrow(/not complete/);
    expect(() => parseCredential('')).toThrow(/Enter a link code/);
  });
});

describe('normaliseServerUrl and originPattern', () => {
  it('keeps scheme, host and port; accepts a trailing slash or /v1', () => {
    expect(normaliseServerUrl('http://127.0.0.1:8787/')).toBe('http://127.0.0.1:8787');
    expect(normaliseServerUrl(' https://presence.example.com/v1 ')).toBe('https://presence.example.com');
    expect(originPattern('http://127.0.0.1:8787')).toBe('http://127.0.0.1:8787/*');
    expect(originPattern('https://presence.example.com')).toBe('https://presence.example.com/*');
  });
  it('refuses other schemes, paths, credentials and non-addresses', () => {
    expect(() => normaliseServerUrl('ftp://example.com')).toThrow(/http/);
    expect(() => normaliseServerUrl('http://example.com/api')).toThrow(/only scheme, host and port/);
    expect(() => normaliseServerUrl('http://me:pw@example.com')).toThrow(/user name or password/);
    expect(() => normaliseServerUrl('127.0.0.1:8787')).toThrow(LinkInputError);
  });
});

describe('formats', () => {
  it('groups thousands without touching decimals or the unit', () => {
    expect(formatAmount('65000.00 USD')).toBe('65,000.00 USD');
    expect(formatAmount('1234567.123456789 WETH')).toBe('1,234,567.123456789 WETH');
    expect(formatAmount('999')).toBe('999');
    expect(formatAmount('n/a')).toBe('n/a');
  });
  it('counts down in m:ss or h:mm:ss, never below zero', () => {
    expect(formatCountdown(600_000)).toBe('10:00');
    expect(formatCountdown(59_001)).toBe('1:00');
    expect(formatCountdown(3_723_000)).toBe('1:02:03');
    expect(formatCountdown(-5)).toBe('0:00');
  });
  it('shortens long hex', () => {
    expect(shortHex(`0x${'ab'.repeat(32)}`)).toBe('0xabab…abab');
    expect(shortHex('0x1234')).toBe('0x1234');
  });
});
