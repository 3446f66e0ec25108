// Link codes: one document per account (data/links/<account>.json), found by hash through the
// lookup index (lookups.ts), since a redeem knows only the code. Making a code drops that
// account's expired ones.
import { z } from 'zod';
import { LinkRecord } from '../documents';
import type { LinksPort } from '../links-port';
import type { Lookups } from './lookups';
import { accountDocuments, type StoreContext } from './per-account';

const LinksDoc = z.object({ links: z.array(LinkRecord) });

export async function openLinks(ctx: StoreContext, lookups: Lookups): Promise<LinksPort> {
  const { documents } = ctx;
  const linkDoc = accountDocuments(ctx, 'links', LinksDoc, { links: [] });
  await linkDoc.indexOnce(lookups, async (accountId, { links }) => {
    for (const l of links) await lookups.addLink(l.hash, accountId, l.expires_at);
  });

  return {
    async putLink(link, now) {
      let expired: string[] = [];
      await linkDoc.use(link.account_id, async (doc) => {
        await lookups.addLink(link.hash, link.account_id, link.expires_at);
        await documents.mutate(doc, (d) => {
          expired = d.links.filter((l) => l.expires_at <= now).map((l) => l.hash);
          return { data: { links: [...d.links.filter((l) => l.expires_at > now), link] }, result: undefined };
        });
      });
      lookups.dropLinks(expired.filter((h) => h !== link.hash));
    },
    async countOutstandingLinks(accountId, now) {
      return (await linkDoc.read(accountId)).links.filter((l) => l.redeemed_at === null && l.expires_at > now).length;
    },
    async redeemLink(hash, now) {
      const accountId = lookups.accountOfLink(hash);
      if (accountId === undefined) return null;
      return linkDoc.mutate(accountId, (d) => {
        const i = d.links.findIndex((l) => l.hash === hash);
        const l = d.links[i];
        if (!l || l.redeemed_at !== null || l.expires_at <= now) return { data: d, result: null };
        const next = { ...l, redeemed_at: now };
        d.links[i] = next;
        return { data: d, result: next };
      });
    },
  };
}
