import { describe, expect, it } from 'vitest';
import { createSendPace } from './send-pace';

describe('createSendPace', () => {
  it("spaces the bot's calls 1/30 s apart from the real clock on, dropping none", () => {
    let t = 1_795_000_000_000;
    const pace = createSendPace({ now: () => t });
    const waits = Array.from({ length: 90 }, () => pace.botSlot());
    expect(waits[0]).toBe(0);
    for (let i = 1; i < waits.length; i++) expect((waits[i] as number) - (waits[i - 1] as number)).toBeCloseTo(1000 / 30, 2);
    t += 10_000; // idle: the next call goes at once
    expect(pace.botSlot()).toBe(0);
  });

  it('holds one chat to a message a second without holding up the others', () => {
    const pace = createSendPace({ now: () => 5_000 });
    expect([0, 1, 2].map(() => pace.chatSlot('a'))).toEqual([0, 1000, 2000]);
    expect(pace.chatSlot('b')).toBe(0);
  });

  it('paces sendMessage through the transformer: a burst to 60 chats takes two seconds of slots', async () => {
    let t = 0;
    const pace = createSendPace({
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
    });
    const prev = async () => ({ ok: true as const, result: true });
    for (let i = 0; i < 60; i++) await pace.transformer(prev as never, 'sendMessage', { chat_id: i, text: 'x' } as never);
    expect(t).toBeCloseTo((59 * 1000) / 30, 5);
  });
});
