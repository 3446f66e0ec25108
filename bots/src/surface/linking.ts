// Linking a chat user to a Presence account with a one-time code, and unlinking. The code is
// redeemed for a key of the bot's own (named `<surface>:<name>`), sealed in the link table;
// no key is ever pasted into or shown in a chat.
//
// Linking happens in private chats only. A code typed anywhere else is voided on sight
// (redeemed, its key revoked at once), since everyone there saw it.
import {
  createPresenceClient,
  type PresenceClient,
  type PresenceClientOptions,
  type RedeemLinkReturnType,
  type SurfaceRedeemReturnType,
} from '@presence/client';
import { type ChatUser, type TextContext, userKey } from './chat-port';
import type { CommandReply } from './commands';
import type { SurfacePart } from './linked-users';
import { describeError, isRevoked, problemType } from './problems';
import {
  alreadyLinkedText,
  LINK_IN_PRIVATE,
  LINK_USAGE,
  linkedText,
  NOT_LINKED,
  type SeenCodeOutcome,
  seenCodeText,
  unlinkedText,
} from './render';

const CODE_GONE = 'That code is unknown, used or expired. Make a new one (`presence link`) and send /link CODE again.';

export type Linking = ReturnType<typeof createLinking>;

export function createLinking(
  o: SurfacePart<'clientFor' | 'forget'> & {
    clientOptions: PresenceClientOptions;
    /** With a surface token: codes are redeemed through it, and no key secret ever reaches the bot. */
    surfaceClient?: PresenceClient | undefined;
    onSecret?: (secret: string) => void;
    now: () => number;
    startFeed(owner: string): void;
    stopFeed(owner: string): Promise<void>;
  },
) {
  const { port, store, users, log } = o;
  const anonymous = createPresenceClient(o.clientOptions);

  /** The name sent when redeeming: one line, within the server's 64 characters. */
  const redeemName = (user: ChatUser, prefix = '') => `${prefix}${user.name.replace(/\s+/g, ' ').trim() || user.id}`.slice(0, 64);

  /**
   * A code seen outside a private chat: deleting the message (or asking for it) does not
   * unsee it, and the code would stay good until it expires. So it is spent here: redeemed,
   * and the key it made revoked at once. The code is never logged (a network error names the
   * request path, which holds it, so errors are logged by type only).
   */
  async function burn(user: ChatUser, code: string): Promise<SeenCodeOutcome> {
    const owner = userKey(user);
    let r: RedeemLinkReturnType | SurfaceRedeemReturnType;
    try {
      // Named so an admin reading the key list sees why a revoked key is there.
      const who = { surface: port.surface, user_id: user.id, name: redeemName(user, 'voided-') };
      r = o.surfaceClient ? await o.surfaceClient.surface.redeem(code, who) : await anonymous.links.redeem(code, who);
    } catch (e) {
      const type = problemType(e);
      if (type === 'not_found' || type === 'invalid_request') return { kind: 'gone' };
      log('warn', 'could not void a link code seen outside a private chat', {
        user: owner,
        error: type ?? (e instanceof Error ? e.name : 'unknown'),
      });
      return { kind: 'failed', reason: describeError(e) };
    }
    const secret = 'key' in r ? r.key : null;
    if (secret) o.onSecret?.(secret);
    // A 401 on a retry means an earlier attempt revoked it and its answer was lost.
    const voider = secret ? createPresenceClient({ ...o.clientOptions, token: secret }) : (o.surfaceClient as PresenceClient).as(r.key_id);
    const revoked = await voider.keys.revokeSelf({ retries: 2 }).then(
      () => true,
      (e: unknown) => isRevoked(e),
    );
    if (revoked) log('info', 'voided a link code seen outside a private chat', { user: owner, key_id: r.key_id });
    else log('warn', 'voided a link code seen outside a private chat, but could not revoke its key', { user: owner, key_id: r.key_id });
    return { kind: 'voided', key_id: r.key_id, revoked };
  }

  return {
    /** `/link CODE`. */
    async link(user: ChatUser, chatId: string, code: string, ctx: TextContext): Promise<CommandReply> {
      const owner = userKey(user);
      // First, so a code typed in a group is voided and never stays there, whoever sent it.
      if (!ctx.isPrivate && !ctx.discreet) {
        if (!code) return { text: LINK_IN_PRIVATE };
        const outcome = await burn(user, code);
        return { text: seenCodeText(outcome, false), removeSource: true, removedText: seenCodeText(outcome, true) };
      }
      const existing = store.get(owner);
      if (existing) return { text: alreadyLinkedText(existing) };
      if (!code) return { text: LINK_USAGE };
      try {
        const who = { surface: port.surface, user_id: user.id, name: redeemName(user) };
        const r = o.surfaceClient ? await o.surfaceClient.surface.redeem(code, who) : await anonymous.links.redeem(code, who);
        const secret = 'key' in r ? r.key : null;
        if (secret) o.onSecret?.(secret);
        await store.link(
          owner,
          {
            surface: port.surface,
            user_id: user.id,
            name: user.name,
            account: r.account,
            key_id: r.key_id,
            key_name: r.name,
            scopes: r.scopes,
            home_chat: ctx.isPrivate ? chatId : null,
            linked_at: new Date(o.now()).toISOString(),
            // Where the account's events stood at redeem: the first subscription replays from
            // here, so nothing between redeeming and subscribing is missed (a live start would).
            last_event_id: r.last_event_id,
          },
          secret,
        );
        o.startFeed(owner);
        log('info', 'linked a user', { user: owner, account: r.account, key_id: r.key_id });
        return { text: linkedText(r), removeSource: true };
      } catch (e) {
        const type = problemType(e);
        if (type === 'not_found' || type === 'invalid_request') return { text: CODE_GONE };
        return { text: describeError(e) };
      }
    },

    /** `/unlink`: retires the key on the server first, so an unlinked chat leaves no working key behind. */
    async unlink(user: ChatUser): Promise<CommandReply> {
      const owner = userKey(user);
      const revoked = store.get(owner)
        ? await users
            .clientFor(owner)
            .keys.revokeSelf({ retries: 1 })
            .then(
              () => true,
              () => false,
            )
        : false;
      const gone = await store.unlink(owner);
      if (!gone) return { text: NOT_LINKED };
      await o.stopFeed(owner);
      users.forget(owner);
      return { text: unlinkedText(gone, revoked) };
    },
  };
}
