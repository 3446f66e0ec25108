// The chat of `presence-bots try` as lines in a terminal: what the bot shows is printed as
// `bot> …`, its buttons as numbered choices under it; a line typed is a message, or a number
// that presses that button of the last message with buttons. A reply the bot streams by
// editing one message (at most an edit a second) is printed once it has been still for
// `quietMs`, not at every edit.
import type { Button, Shown } from './loopback-bot-api';

export type Typed = { kind: 'say'; text: string } | { kind: 'press'; id: number; data: string } | { kind: 'quit' } | { kind: 'nothing' };

export function createTerminalChat({ write, quietMs = 1500 }: { write: (text: string) => void; quietMs?: number }) {
  const waiting = new Map<number, { text: string; buttons: Button[]; edited: boolean; timer: NodeJS.Timeout }>();
  const printed = new Set<number>();
  let choices: { id: number; buttons: Button[] } | null = null;

  const print = (id: number, text: string, buttons: Button[], edited: boolean) => {
    waiting.delete(id);
    const head = edited && printed.has(id) ? 'bot (edited)> ' : 'bot> ';
    const lines = text.split('\n');
    let out = `${head}${lines[0]}\n${lines
      .slice(1)
      .map((l) => `${' '.repeat(head.length)}${l}\n`)
      .join('')}`;
    if (buttons.length > 0) {
      out += `${' '.repeat(head.length)}${buttons.map((b, i) => `[${i + 1}] ${b.text}`).join('   ')}   (type the number)\n`;
      choices = { id, buttons };
    } else if (choices?.id === id) choices = null;
    printed.add(id);
    write(out);
  };

  return {
    /** What the loopback Bot API reports. */
    show(s: Shown) {
      if (s.kind === 'notice') return write(`bot (notice)> ${s.text}\n`);
      if (s.kind === 'unknown') return write(`(the bot called ${s.method}, which this loopback Bot API does not have)\n`);
      if (s.kind === 'deleted') {
        clearTimeout(waiting.get(s.id)?.timer);
        waiting.delete(s.id);
        if (choices?.id === s.id) choices = null;
        return write(
          s.mine
            ? '(the bot deleted your message from the chat, as it does with a /link code)\n'
            : '(the bot deleted one of its messages)\n',
        );
      }
      clearTimeout(waiting.get(s.id)?.timer);
      // A card (buttons) is shown at once; text may still be streaming in.
      if (s.buttons.length > 0) return print(s.id, s.text, s.buttons, s.edited);
      const timer = setTimeout(() => print(s.id, s.text, s.buttons, s.edited), quietMs);
      waiting.set(s.id, { text: s.text, buttons: s.buttons, edited: s.edited, timer });
    },
    /** What a typed line means. */
    read(line: string): Typed {
      const text = line.trim();
      if (text === '') return { kind: 'nothing' };
      if (text === '/quit' || text === '/exit') return { kind: 'quit' };
      const n = /^\d+$/.test(text) ? Number(text) : 0;
      const button = choices && n >= 1 ? choices.buttons[n - 1] : undefined;
      if (choices && button) return { kind: 'press', id: choices.id, data: button.data };
      return { kind: 'say', text };
    },
    /** Prints what is still waiting to be still (at the end). */
    flush() {
      for (const [id, w] of [...waiting]) {
        clearTimeout(w.timer);
        print(id, w.text, w.buttons, w.edited);
      }
    },
  };
}
