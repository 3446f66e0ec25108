// The port each chat platform implements for the shared surface layer: send a message
// (optionally with buttons), edit one, and find a user's private chat. Everything the
// bots do is written against this, so the Telegram and Discord adapters stay thin.

import type { MessageRef, SurfaceName } from './records';

// Kept in records (they are stored too); named here as well, where the port speaks of them.
export type { MessageRef, SurfaceName } from './records';

/** A platform user as the surface layer sees them. */
export type ChatUser = {
  surface: SurfaceName;
  /** The platform's user id, as a string. */
  id: string;
  /** A display name: username or first name. */
  name: string;
};

export const sameMessage = (a: MessageRef, b: MessageRef) => a.chatId === b.chatId && a.messageId === b.messageId;

/** A callback button (its press comes back as `data`), or a link button that opens `url` (a passkey approval page). */
export type ChatButton = { label: string; data: string; style: 'approve' | 'deny' } | { label: string; url: string; style: 'link' };

/** Where a user's text was typed, as the adapter saw it. */
export type TextContext = {
  /** A private chat (DM): links are allowed and it becomes the user's home chat. */
  isPrivate: boolean;
  /** Outside a private chat, only this user sees the command and its answer (Discord's ephemeral slash commands). */
  discreet?: boolean;
  /** The user's message, for removal after /link (or a /link refused in a group) and as the turn's Idempotency-Key. */
  source?: MessageRef;
};

export interface ChatPort {
  readonly surface: SurfaceName;
  /** The platform's length limit for one message, in characters. */
  readonly maxLength: number;
  send(chatId: string, text: string, buttons?: readonly ChatButton[]): Promise<MessageRef>;
  /** Replaces the text; without `buttons` any buttons are removed. "Not modified" is not an error. */
  edit(ref: MessageRef, text: string, buttons?: readonly ChatButton[]): Promise<void>;
  /** The chat in which the bot can write to this user privately. */
  privateChat(userId: string): Promise<string>;
  /** Deletes a user's message where the platform lets bots do so (used for /link CODE). */
  remove?(ref: MessageRef): Promise<void>;
}

/** The link table's key for a user: `<surface>:<user id>`. */
export const userKey = (user: Pick<ChatUser, 'surface' | 'id'>) => `${user.surface}:${user.id}`;
