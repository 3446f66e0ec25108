// Commands: "/name@bot args" parsed (both platforms accept commands typed as text; Discord's
// slash commands arrive as interactions and skip the parsing), and each one answered.
// /link and /unlink are the linking's; /wallet and /pending read with the user's key, and a
// 401 there unlinks the user.
import type { PresenceClient } from '@presence/client';
import type { Cards } from './cards';
import { type ChatUser, type TextContext, userKey } from './chat-port';
import type { LinkStore } from './link-store';
import type { LinkedUsers } from './linked-users';
import { describeError, isRevoked } from './problems';
import { helpText, NOT_LINKED, pendingText, REVOKED, unknownCommandText, walletText } from './render';

export type ParsedCommand = { name: string; target: string | null; args: string };

const COMMAND = /^\/([A-Za-z0-9_]{1,32})(?:@([A-Za-z0-9_]+))?(?:\s+([\s\S]*))?$/;

export function parseCommand(text: string): ParsedCommand | null {
  const m = COMMAND.exec(text.trim());
  if (!m) return null;
  return { name: (m[1] as string).toLowerCase(), target: m[2] ?? null, args: (m[3] ?? '').trim() };
}

export type CommandReply = {
  text: string;
  after?: () => Promise<void>;
  /** The user's message carried a link code: delete it where the platform lets us. */
  removeSource?: boolean;
  /** Said instead of `text` once the message is deleted (when that changes what to say). */
  removedText?: string;
};

export function createCommands(o: {
  store: LinkStore;
  users: Pick<LinkedUsers, 'clientFor' | 'revoked' | 'rememberHome'>;
  linking: {
    link(user: ChatUser, chatId: string, code: string, ctx: TextContext): Promise<CommandReply>;
    unlink(user: ChatUser): Promise<CommandReply>;
  };
  cards: Pick<Cards, 'show'>;
  now: () => number;
}) {
  const { store, users, linking, cards } = o;

  /** Runs `fn` for a linked user; maps failures to one sentence (and a 401 to unlinking). */
  async function asLinked(user: ChatUser, fn: (owner: string, client: PresenceClient) => Promise<CommandReply>): Promise<CommandReply> {
    const owner = userKey(user);
    if (!store.get(owner)) return { text: NOT_LINKED };
    try {
      return await fn(owner, users.clientFor(owner));
    } catch (e) {
      if (isRevoked(e)) {
        await users.revoked(owner, { notify: false });
        return { text: REVOKED };
      }
      return { text: describeError(e) };
    }
  }

  return async function command(user: ChatUser, chatId: string, name: string, args: string, ctx: TextContext): Promise<CommandReply> {
    const owner = userKey(user);
    await users.rememberHome(user, chatId, ctx.isPrivate);
    switch (name) {
      case 'start':
      case 'help':
        return { text: helpText(store.get(owner)) };
      case 'link':
        return linking.link(user, chatId, args.split(/\s+/)[0] ?? '', ctx);
      case 'unlink':
        return linking.unlink(user);
      case 'wallet':
        return asLinked(user, async (_owner, client) => ({ text: walletText(await client.wallet.get()) }));
      case 'pending':
        return asLinked(user, async (owner, client) => {
          const list = await client.confirm.list({ status: 'held' });
          return {
            text: pendingText(list, o.now()),
            after: async () => {
              for (const c of list.confirmations) {
                await cards.show(owner, chatId, { ...c, value_usd: null, timeout_s: null }, { again: true });
              }
            },
          };
        });
      default:
        return { text: unknownCommandText(name) };
    }
  };
}
