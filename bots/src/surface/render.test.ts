import { describe, expect, it } from 'vitest';
import { parseCommand } from './commands';
import { cardText, outcomeText, pendingText, seenCodeText, timeLeft } from './render';

describe('render', () => {
  it('time left reads like a person would say it', () => {
    expect([timeLeft(-5), timeLeft(59_999), timeLeft(600_000), timeLeft(599_000), timeLeft(3_900_000)]).toEqual([
      '0 s',
      '59 s',
      '10 min',
      '9 min 59 s',
      '1 h 5 min',
    ]);
  });

  it('a card shows summary, amount with value, and time left within the hold timeout', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const card = {
      summary: 'swap 20 USDC for WETH',
      amount: '20 USDC',
      value_usd: '20.00 USD',
      expires_at: '2026-01-01T00:10:00.000Z',
      timeout_s: 600,
    };
    expect(cardText(card, now)).toBe(
      'Approval needed: swap 20 USDC for WETH\nAmount: 20 USDC (≈ 20.00 USD)\nTime left: 10 min (until 00:10 UTC)',
    );
    // USD figures as chat writes them; the token amount as it would be typed back.
    expect(cardText({ ...card, amount: '2500 USDC', value_usd: '2500.00 USD' }, now)).toContain('Amount: 2500 USDC (≈ 2,500.00 USD)');
    // A bot clock far behind the server's is not trusted beyond the timeout.
    expect(cardText(card, now - 3_600_000)).toContain('Time left: 10 min');
  });

  const quoted = 'swap 22 USDC for at least 0.007238 WETH (quoted 0.007311279878129051 WETH)';

  it("a card, its outcome and /pending show a swap's quote rounded for people, not its 18 digits", () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const card = { summary: quoted, amount: '22 USDC', value_usd: '22.00 USD', expires_at: '2026-01-01T00:10:00.000Z', timeout_s: 600 };
    const text = cardText(card, now);
    expect(text).toContain('Approval needed: swap 22 USDC for about 0.00731128 WETH (at least 0.007238 WETH)');
    expect(text).toContain('Amount: 22 USDC (≈ 22.00 USD)');
    expect(text).not.toContain('0.007311279878129051');
    expect(outcomeText(card, { status: 'denied' })).toBe(
      '❌ Denied: swap 22 USDC for about 0.00731128 WETH (at least 0.007238 WETH). Nothing was sent.',
    );
    const held = {
      ...card,
      confirm_id: 'cf_1',
      intent_id: 'in_1',
      status: 'held' as const,
      created_at: '2026-01-01T00:00:00.000Z',
      tx: null,
      block: null,
    };
    const pending = pendingText({ confirmations: [held] }, now);
    expect(pending).toContain('for about 0.00731128 WETH (at least 0.007238 WETH)');
    expect(pending).not.toContain('0.007311279878129051');
  });

  it('outcomes name what happened', () => {
    const card = { summary: 'swap', amount: '1 USDC' };
    expect(outcomeText(card, { status: 'executed', tx: '0xabc', block: 7 })).toBe('✅ Approved and executed: swap\nTx 0xabc in block 7');
    expect(outcomeText(card, { status: 'expired' })).toMatch(/^⌛ Expired: swap/);
    expect(outcomeText(card, { status: 'failed', reason: 'reverted' })).toBe('⚠️ Failed: swap (reverted).');
  });

  it('parses commands with a bot name and arguments', () => {
    expect(parseCommand('/link  ABCD2345 ')).toEqual({ name: 'link', target: null, args: 'ABCD2345' });
    expect(parseCommand('/Wallet@presence_bot')).toEqual({ name: 'wallet', target: 'presence_bot', args: '' });
    expect(parseCommand('how deep is WETH-USDC')).toBeNull();
    expect(parseCommand('/ not a command')).toBeNull();
  });

  it('a code seen in a group: voided, gone, or (when Presence cannot void it) still to be deleted', () => {
    expect(seenCodeText({ kind: 'voided', key_id: 'key_1', revoked: true }, true)).toMatch(/voided it: nobody can use it now\. I deleted/);
    expect(seenCodeText({ kind: 'voided', key_id: 'key_1', revoked: false }, false)).toContain('presence keys revoke key_1');
    expect(seenCodeText({ kind: 'gone' }, false)).toContain('unknown, used or expired');
    const failed = seenCodeText({ kind: 'failed', reason: 'Presence is unavailable right now, try again in a moment.' }, false);
    expect(failed).toContain('(Presence is unavailable right now, try again in a moment). Please delete your message');
    expect(seenCodeText({ kind: 'failed', reason: 'busy' }, true)).toContain(
      'I deleted your message, but anyone who saw the code could use it',
    );
  });
});
