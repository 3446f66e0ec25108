// The store contract for memory entries: rows a change names, counted per account. One family's
// section of the port; describeStoreContract (../store-contract.ts) runs every family's, and an
// adapter may run only some (`sections`).
import { beforeEach, expect, it } from 'vitest';
import type { StorePort } from '../../src/store/store-port';
import { fanOut, memo, range, type StoreHarness, turn } from '../fixtures';
import type { ContractContext } from './context';

export function memoryContract(ctx: ContractContext) {
  ctx.section('memory', () => {
    let h: StoreHarness;
    let store: StorePort;
    beforeEach(() => {
      ({ h, store } = ctx.current());
    });

    it('an account without memory reads empty; changeMemory sees the named entries and the count, and writes rows', async () => {
      expect(await store.readMemory('a')).toEqual([]);
      const seen = await store.changeMemory('a', ['topic:x'], (c) => ({ put: [memo('topic:x')], result: c }));
      expect(seen).toEqual({ found: new Map(), count: 0 });
      await store.changeMemory('a', ['topic:y'], () => ({ put: [memo('topic:y', 'why')], result: undefined }));
      expect(await store.readMemory('a')).toEqual(expect.arrayContaining([memo('topic:x'), memo('topic:y', 'why')]));
      expect(await store.peekMemory('a', ['topic:y', 'topic:z'])).toEqual({
        found: new Map([['topic:y', memo('topic:y', 'why')]]),
        count: 2,
      });
      // Removing a key that is not stored changes nothing; the count follows what is kept.
      const after = await store.changeMemory('a', ['topic:x', 'topic:q'], (c) => ({ remove: ['topic:x', 'topic:q'], result: c.count }));
      expect(after).toBe(2);
      expect(await store.peekMemory('a', ['topic:x'])).toEqual({ found: new Map(), count: 1 });
      expect(await store.readMemory('b')).toEqual([]);
    });

    it('concurrent pins from several servers are all kept, and counted', async () => {
      await fanOut(await h.peers(4), 8, (s, i) =>
        s.changeMemory('a', [`topic:t${i}`], () => ({ put: [memo(`topic:t${i}`)], result: undefined })),
      );
      expect((await store.readMemory('a')).map((e) => e.key).sort()).toEqual(
        range(32, 0)
          .map((i) => `topic:t${i}`)
          .sort(),
      );
      expect((await store.peekMemory('a', [])).count).toBe(32);
    });

    it('concurrent changes of one entry each see the one before (none is lost)', async () => {
      await fanOut(await h.peers(4), 5, (s) =>
        s.changeMemory('a', ['topic:n'], ({ found }) => {
          const prev = found.get('topic:n');
          return { put: [{ ...memo('topic:n'), touches: (prev?.touches ?? 0) + 1 }], result: undefined };
        }),
      );
      expect((await store.peekMemory('a', ['topic:n'])).found.get('topic:n')?.touches).toBe(20);
    });

    it('text with any character, NUL and astral ones included, comes back as written', async () => {
      const note = 'nul:\u0000 quote:" backslash:\\ newline:\n emoji:🦊 rtl:\u202e';
      await store.changeMemory('a', ['topic:odd'], () => ({ put: [memo('topic:odd', note)], result: undefined }));
      const entry = await store.appendThread('a', turn(note));
      await store.appendEvent('a', { type: 'memory', data: { note }, at: 1 });
      if (ctx.durable) store = await h.reopen();
      expect((await store.readMemory('a'))[0]?.note).toBe(note);
      expect(await store.readThread('a', { limit: 1 })).toEqual([entry]);
      expect((await store.eventsAfter('a', 0, 1))[0]?.data).toEqual({ note });
    });
  });
}
