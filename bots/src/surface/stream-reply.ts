// A streamed reply shown by editing one message as tokens arrive. Each send or edit takes
// a slot from the chat's pacer and is computed from the text as it is *after* the wait, so
// a burst of tokens becomes one edit. Text over the platform limit continues in further
// messages (the earlier ones are edited to their final part first).
import type { ChatPort, MessageRef } from './chat-port';
import type { Pacer } from './pacer';
import { splitMessage } from './split';

export type StreamReply = {
  /** Appends streamed text; the screen catches up at the pacer's rate. */
  push(text: string): void;
  /** Shows `text` (the whole reply) and resolves once every part is on screen. */
  finish(text?: string): Promise<MessageRef[]>;
  /** Ends with a note under whatever was shown (or the note alone). */
  fail(note: string): Promise<MessageRef[]>;
  /** True once anything was sent. */
  readonly started: boolean;
};

export function createStreamReply(port: ChatPort, chatId: string, pacer: Pacer): StreamReply {
  let text = '';
  const sent: { ref: MessageRef; shown: string }[] = [];
  let running: Promise<void> | null = null;
  let again = false;
  let failure: unknown = null;

  /** The first part that differs from the screen, or -1. */
  const firstDiff = (parts: string[]) => parts.findIndex((p, i) => sent[i]?.shown !== p);
  const parts = () => (text.trim() === '' ? [] : splitMessage(text, port.maxLength));

  async function catchUp() {
    while (failure === null && firstDiff(parts()) !== -1) {
      await pacer.wait(chatId);
      const now = parts();
      const i = firstDiff(now);
      if (i === -1) break;
      const part = now[i] as string;
      const have = sent[i];
      try {
        if (have) {
          await port.edit(have.ref, part);
          have.shown = part;
        } else sent.push({ ref: await port.send(chatId, part), shown: part });
      } catch (e) {
        failure = e;
      }
    }
  }

  function kick() {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await catchUp();
      } while (again && failure === null);
    })().finally(() => {
      running = null;
    });
  }

  async function settle(): Promise<MessageRef[]> {
    kick();
    while (running) await running;
    if (failure !== null) throw failure;
    return sent.map((s) => s.ref);
  }

  return {
    push(t) {
      text += t;
      kick();
    },
    finish(final) {
      if (final !== undefined) text = final;
      return settle();
    },
    fail(note) {
      text = text.trim() === '' ? note : `${text}\n\n${note}`;
      return settle();
    },
    get started() {
      return sent.length > 0;
    },
  };
}
