// An emit is held to the protocol's payload schemas where it is made. At compile time: each
// event type takes its own payload (protocol/src/events.ts, less the `at` the log stamps), so a
// field renamed, dropped, mistyped or added in core breaks `tsc -p core` (the package's
// `typecheck`, which CI runs) instead of every surface that parses the stream. Each
// `@ts-expect-error` below is that proof: were the wrong payload accepted, the unused directive
// would itself fail the typecheck. (That what the log stores parses under the protocol's
// schemas unchanged is events-log.test.ts's.)
import type { EventData } from '@presence/protocol';
import { expectTypeOf, it } from 'vitest';
import type { Emitted, EventsLog } from './events-log';

const intent = { id: 'in_1', summary: 'send 1 USDC to 0xabc', amount: '1 USDC', source: 'api' };
const tx = { hash: '0x01', block: 7, intent };
const held = {
  confirm_id: 'cf_1',
  intent_id: 'in_1',
  summary: 'send 900 USDC to 0xabc',
  amount: '900 USDC',
  value_usd: '900.00',
  expires_at: '2025-01-01T00:05:00.000Z',
  timeout_s: 300,
};
const { timeout_s: _, ...heldWithoutTimeout } = held;

/** Never called: the compiler is the one that reads it. */
function wrongEmits(log: EventsLog) {
  // @ts-expect-error a renamed field: tx's `hash` is not `tx_hash`
  void log.emit({ accountId: 'a', kind: 'live' }, 'tx', { tx_hash: '0x01', block: 7, intent });
  // @ts-expect-error a field of the wrong type: a block number is a number
  void log.emit({ accountId: 'a', kind: 'live' }, 'tx', { ...tx, block: '7' });
  // @ts-expect-error a nested field renamed: the intent's `summary`
  void log.emit({ accountId: 'a', kind: 'live' }, 'tx', { ...tx, intent: { id: 'in_1', text: 'x', amount: '1 USDC', source: 'api' } });
  // @ts-expect-error a missing field: needs_confirm carries timeout_s
  void log.emit({ accountId: 'a', kind: 'live' }, 'needs_confirm', heldWithoutTimeout);
  // @ts-expect-error a field the schema lacks
  void log.emit({ accountId: 'a', kind: 'live' }, 'message', { text: 'hi', cause: 'turn', mood: 'glad' });
  // @ts-expect-error another type's payload: a memory event is a key and a tier
  void log.emit({ accountId: 'a', kind: 'live' }, 'memory', { text: 'hi', cause: 'turn' });
  // @ts-expect-error a value outside the schema's enum
  void log.emit({ accountId: 'a', kind: 'live' }, 'confirm', { confirm_id: 'cf_1', intent_id: 'in_1', status: 'approved' });
  // @ts-expect-error the log stamps `at`; an emit does not give it
  void log.emit({ accountId: 'a', kind: 'live' }, 'memory', { key: 'topic:x', tier: 'fading', at: '2025-01-01T00:00:00.000Z' });
  // @ts-expect-error a type the protocol does not define
  void log.emit({ accountId: 'a', kind: 'live' }, 'gap', { oldest_id: 1 });
}

it('takes, for each type, the protocol payload less `at`', () => {
  expectTypeOf(wrongEmits).toBeFunction();
  expectTypeOf<Extract<Emitted, ['tx', unknown]>[1]>().toEqualTypeOf<Omit<EventData<'tx'>, 'at'>>();
  expectTypeOf<Extract<Emitted, ['confirm', unknown]>[1]>().toEqualTypeOf<Omit<EventData<'confirm'>, 'at'>>();
});
