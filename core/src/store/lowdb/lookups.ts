// Which account holds a key or a link code, found by hash without opening every account's
// documents (data/lookups.jsonl): one line per secret hash of a key (with the key's id) and per
// link code (with its expiry), appended and made durable before the document that holds the
// record is written, so a record is always findable. Lines only ever over-include: a hash
// rotated away or a code redeemed still maps to its account, whose own document then says no.
// Loaded whole at start (a line per key and live code, not per account's history), compacted
// there once dead lines (codes dropped, hashes replaced) make up most of it. A data directory from before it is indexed once.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { createAppendLog } from '../append-log';

const LookupLine = z.discriminatedUnion('t', [
  z.object({ t: z.literal('key'), h: z.string(), k: z.string(), a: z.string() }),
  // x: the code's expiry; null: the code is gone from its account's document.
  z.object({ t: z.literal('link'), h: z.string(), a: z.string(), x: z.number().nullable() }),
]);
type LookupLine = z.infer<typeof LookupLine>;

export type Lookups = Awaited<ReturnType<typeof openLookups>>;

export async function openLookups(root: string, { fsync }: { fsync: boolean }) {
  const where = path.join(root, 'lookups.jsonl');
  const existed = existsSync(where);
  const file = createAppendLog(where, LookupLine, { fsync });
  const keyByHash = new Map<string, string>();
  const accountOfKey = new Map<string, string>();
  const links = new Map<string, { a: string; x: number }>();
  const take = (l: LookupLine) => {
    if (l.t === 'key') {
      keyByHash.set(l.h, l.k);
      accountOfKey.set(l.k, l.a);
    } else if (l.x === null) links.delete(l.h);
    else links.set(l.h, { a: l.a, x: l.x });
  };
  const lines = await file.readAll();
  for (const l of lines) take(l);
  const live = (): LookupLine[] => [
    ...[...keyByHash].map(([h, k]) => ({ t: 'key' as const, h, k, a: accountOfKey.get(k) as string })),
    ...[...links].map(([h, l]) => ({ t: 'link' as const, h, ...l })),
  ];
  if (lines.length > 2 * (keyByHash.size + links.size) + 1_000) await file.rewrite(live);

  const append = async (add: LookupLine[]) => {
    if (add.length === 0) return;
    for (const l of add) take(l);
    await file.append(add);
  };
  return {
    existed,
    keyOf: (hash: string) => keyByHash.get(hash),
    accountOfKey: (keyId: string) => accountOfKey.get(keyId),
    accountOfLink: (hash: string) => links.get(hash)?.a,
    /** Indexes a key's secret hashes (those not indexed yet); durable when it resolves. */
    addKey: (keyId: string, accountId: string, hashes: readonly string[]) =>
      append(hashes.filter((h) => keyByHash.get(h) !== keyId).map((h) => ({ t: 'key' as const, h, k: keyId, a: accountId }))),
    addLink: (hash: string, accountId: string, expiresAt: number) => append([{ t: 'link', h: hash, a: accountId, x: expiresAt }]),
    /** Forgets codes dropped from their document (a hint: written without waiting, compacted away at a start). */
    dropLinks(hashes: readonly string[]) {
      const gone = hashes.flatMap((h) => {
        const l = links.get(h);
        return l ? [{ t: 'link' as const, h, a: l.a, x: null }] : [];
      });
      void append(gone).catch(() => undefined);
    },
    /** Writes what is indexed as the whole file, so the next start knows the index is complete. */
    markIndexed: () => file.rewrite(live),
    close: () => file.close(),
  };
}
