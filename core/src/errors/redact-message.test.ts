// What a log line may keep of a message: URLs as scheme, host and port; no request body; no
// key, token, webhook secret, link code, master key or password; one line of bounded length.
import { HttpRequestError, RpcRequestError } from 'viem';
import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, redactMessage } from './redact-message';

const KEY = `prs_live_${'A1b2C3d4E5'.repeat(4)}`;

describe('redactMessage', () => {
  it.each([
    ['https://eth-mainnet.g.alchemy.com/v2/abcDEF123secret', 'https://eth-mainnet.g.alchemy.com/…'],
    ['wss://base.example.org:8443/ws/abcDEF123secret', 'wss://base.example.org:8443/…'],
    ['http://user:hunter2@rpc.example.org:8545', 'http://rpc.example.org:8545/…'],
    ['https://rpc.example.org/?apikey=abcDEF123secret', 'https://rpc.example.org/…'],
    ['https://rpc.example.org#token=abcDEF123secret', 'https://rpc.example.org/…'],
    ['postgres://presence:hunter2@db.internal:5432/presence', 'postgres://db.internal:5432/…'],
    ['postgresql://presence:p@ss@word@db.internal/presence?sslmode=require', 'postgresql://db.internal/…'],
    ['connect to http://127.0.0.1:8545/ failed', 'connect to http://127.0.0.1:8545/ failed'],
    ['at https://rpc.example.org, then', 'at https://rpc.example.org, then'],
    ['("https://rpc.example.org/v2/abcDEF123secret")', '("https://rpc.example.org/…")'],
  ])('%s → %s', (message, redacted) => {
    expect(redactMessage(message)).toBe(redacted);
  });

  it("keeps what viem's HTTP error says of the failure, not its URL's path or its request body", () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ to: '0xabc', data: '0xdeadbeef' }] };
    const err = new HttpRequestError({
      body,
      url: 'https://eth-mainnet.g.alchemy.com/v2/abcDEF123secret',
      status: 429,
      details: 'Too Many Requests',
    });
    expect(err.message).toContain('abcDEF123secret'); // what it would have logged
    expect(err.message).toContain('Request body:');
    expect(redactMessage(err.message)).toBe(
      'HTTP request failed. | Status: 429 | URL: https://eth-mainnet.g.alchemy.com/… | Details: Too Many Requests',
    );
  });

  it("keeps a JSON-RPC error's own words", () => {
    const err = new RpcRequestError({
      body: { method: 'eth_call' },
      error: { code: -32005, message: 'daily request count exceeded, request rate limited' },
      url: 'https://base.example.org/v1/abcDEF123secret',
    });
    const redacted = redactMessage(err.message);
    expect(redacted).toContain('daily request count exceeded');
    expect(redacted).toContain('URL: https://base.example.org/…');
    expect(redacted).not.toContain('abcDEF123secret');
    expect(redacted).not.toContain('eth_call');
  });

  it.each([
    [`authorization failed for ${KEY}`, 'authorization failed for [live key]'],
    [`prs_surface_${'x'.repeat(40)} and prs_test_${'Z'.repeat(40)}`, '[surface token] and [test key]'],
    ['secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw== rotated', 'secret [webhook secret] rotated'],
    ['code ABCDEFGHJKLMNPQRSTUV redeemed', 'code [link code] redeemed'],
    [`key ${'0123456789abcdef'.repeat(4)} refused`, 'key [64 hex] refused'],
    ['header Authorization: Bearer abc.def.ghi sent', 'header Authorization: Bearer … sent'],
    ['host=db user=presence password=hunter2 dbname=presence', 'host=db user=presence password=… dbname=presence'],
    ['{"api_key":"abcDEF123secret","n":1}', '{"api_key":"…","n":1}'],
    ['token: abcDEF123secret', 'token: …'],
  ])('masks %s', (message, redacted) => {
    expect(redactMessage(message)).toBe(redacted);
  });

  it('keeps transaction hashes, addresses and the words of ordinary errors', () => {
    const hash = `0x${'ab'.repeat(32)}`;
    const message = `tx ${hash} to 0x000000000000000000000000000000000000dEaD: password authentication failed for user "presence" (ECONNREFUSED)`;
    expect(redactMessage(message)).toBe(message);
  });

  it('is one line, at most MAX_MESSAGE_CHARS, and gives the same on a second pass', () => {
    const long = `first line\n\n  second https://h.example/${'s'.repeat(5000)}\n${'word '.repeat(400)}`;
    const once = redactMessage(long);
    expect(once).not.toContain('\n');
    expect(once.startsWith('first line | second https://h.example/… | word')).toBe(true);
    expect(once.length).toBe(MAX_MESSAGE_CHARS);
    expect(once.endsWith('…')).toBe(true);
    expect(redactMessage(once)).toBe(once);
  });

  it('drops a word cut where reading stops, which could be a secret too short there to be recognised', () => {
    // 18 master-key-like words shrink to "[64 hex]" after the cut, so what follows them fits
    // in the line; the link code starts 19 characters before the reading limit (1,200).
    const hex = '0123456789abcdef'.repeat(4);
    const message = `${`${hex} `.repeat(18)}${'b'.repeat(10)} ABCDEFGHJKLMNPQRSTUV tail`;
    expect(message.indexOf('ABCD')).toBe(1200 - 19);
    const redacted = redactMessage(message);
    expect(redacted).toMatch(/\[64 hex\] b{10} …$/);
    expect(redacted).not.toContain('ABCDEFGH');
  });
});
