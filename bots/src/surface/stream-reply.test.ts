import { describe, expect, it } from 'vitest';
import type { ChatPort, MessageRef } from './chat-port';
import { createPacer } from './pacer';
import { createStreamReply } from './stream-reply';

function fakePort(maxLength = 20) {
  const ops: string[] = [];
  let n = 0;
  const port: ChatPort = {
    surface: 'telegram',
    maxLength,
    async send(chatId, text) {
      ops.push(`send ${text}`);
      return { chatId, messageId: String(++n) };
    },
    async edit(ref: MessageRef, text) {
      ops.push(`edit ${ref.messageId} ${text}`);
    },
    privateChat: async (id) => id,
  };
  return { port, ops };
}

describe('createStreamReply', () => {
  it('sends the first tokens, folds a burst into one edit, and ends on the whole reply', async () => {
    const { port, ops } = fakePort(100);
    const reply = createStreamReply(port, 'c', createPacer(30));
    reply.push('Hello');
    reply.push(' there,');
    await expect.poll(() => ops[0]).toMatch(/^send Hello/); // the first tokens are out; the burst comes after
    for (const t of [' how', ' are', ' you']) reply.push(t);
    await reply.finish('Hello there, how are you?');
    expect(ops[0]).toMatch(/^send Hello/);
    expect(ops.at(-1)).toBe('edit 1 Hello there, how are you?');
    expect(ops.length).toBeLessThanOrEqual(3);
  });

  it('continues past the limit in further messages', async () => {
    const { port, ops } = fakePort(20);
    const reply = createStreamReply(port, 'c', createPacer(0));
    const refs = await reply.finish('aaaa bbbb cccc dddd eeee ffff gggg');
    expect(refs.map((r) => r.messageId)).toEqual(['1', '2']);
    expect(ops).toEqual(['send aaaa bbbb cccc dddd', 'send eeee ffff gggg']);
  });

  it('puts a failure note under what was shown, or alone', async () => {
    const a = fakePort(100);
    const shown = createStreamReply(a.port, 'c', createPacer(0));
    shown.push('Partial');
    await expect.poll(() => a.ops).toEqual(['send Partial']);
    await shown.fail('Presence is down.');
    expect(a.ops.at(-1)).toBe('edit 1 Partial\n\nPresence is down.');
    const b = fakePort(100);
    await createStreamReply(b.port, 'c', createPacer(0)).fail('Presence is down.');
    expect(b.ops).toEqual(['send Presence is down.']);
  });

  it('waits for text that is more than whitespace', async () => {
    const { port, ops } = fakePort(100);
    const pacer = createPacer(0);
    createStreamReply(port, 'c', pacer).push('  ');
    // A marker: another reply in the same chat, after it, finished. The pacer hands out slots
    // in order, so whitespace sent on its own would have been sent first.
    await createStreamReply(port, 'c', pacer).finish('marker');
    expect(ops).toEqual(['send marker']);
  });

  it('reports a platform failure from finish', async () => {
    const { port } = fakePort(100);
    const reply = createStreamReply(port, 'c', createPacer(0));
    reply.push('  ');
    port.send = async () => {
      throw new Error('platform down');
    };
    await expect(reply.finish('hi')).rejects.toThrow('platform down');
  });
});
