// The records the bots' stores keep, as tests make them: one linked user (without a sealed
// key: the store seals one when given a secret) and an open confirmation card.
import type { CardRecord, LinkRecord } from '../../src/surface/records';

/** A linked user: telegram user 42, "alice", by default. */
export const linkRecord = (over: Partial<Omit<LinkRecord, 'sealed_key'>> = {}): Omit<LinkRecord, 'sealed_key'> => ({
  surface: 'telegram',
  user_id: '42',
  name: 'alice',
  account: 'default',
  key_id: 'key_x',
  key_name: 'telegram:alice',
  scopes: ['talk'],
  home_chat: '42',
  linked_at: '2026-01-01T00:00:00.000Z',
  last_event_id: null,
  ...over,
});

/** Telegram user `i`, each with a name and key id of their own. */
export const userRecord = (i: number) =>
  linkRecord({ user_id: String(i), name: `user${i}`, key_id: `key_${i}`, key_name: `telegram:user${i}`, home_chat: String(i) });

/** An open card of `owner` shown in one message (`chatId`, `messageId`), expiring a minute after `now`; the store stamps `updated_at`. */
export const cardRecord = (
  confirmId: string,
  messageId: string,
  { owner = 'telegram:42', chatId = '42', now = Date.now() }: { owner?: string; chatId?: string; now?: number } = {},
): Omit<CardRecord, 'updated_at'> => ({
  owner,
  confirm_id: confirmId,
  summary: 's',
  amount: '1 USDC',
  value_usd: null,
  expires_at: new Date(now + 60_000).toISOString(),
  timeout_s: 60,
  messages: [{ chatId, messageId }],
  state: 'open',
  outcome: null,
});
