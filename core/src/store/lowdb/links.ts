// Link codes: one document per account (data/links/<account>.json), and a map from code hash
// to account built at start, since a redeem knows only the code. Making a code drops that
// account's expired ones.
import { z } from 'zod';
import { LinkRecord } from '../documents';
import type { StorePort } from '../store-port';
import { accountDocuments, type StoreContext } from './per-account';

const LinksDoc = z.object({ links: z.array(LinkRecord) });

export type LinksFamily = Pick<StorePort, 'putLink' | 'redeemLink' | 'countOutstandingLinks'>;

export async function openLinks(ctx: StoreContext): Promise<LinksFamily> {
  const { documents } = ctx;
  const linkDoc = accountDocuments(ctx, 'links', LinksDoc, { links: [] });
  const accountOf = new Map<string, string>();
  for (const accountId of linkDoc.stored()) for (const l of (await linkDoc(accountId)).db.data.links) accountOf.set(l.hash, accountId);

  return {
    async putLink(link, now) {
      let expired: string[] = [];
      await documents.mutate(await linkDoc(link.account_id), (d) => {
        expired = d.links.filter((l) => l.expires_at <= now).map((l) => l.hash);
        return { data: { links: [...d.links.filter((l) => l.expires_at > now), link] }, result: undefined };
      });
      for (const hash of expired) if (accountOf.get(hash) === link.account_id) accountOf.delete(hash);
      accountOf.set(link.hash, link.account_id);
    },
    async countOutstandingLinks(accountId, now) {
      return (await linkDoc(accountId)).db.data.links.filter((l) => l.redeemed_at === null && l.expires_at > now).length;
    },
    async redeemLink(hash, now) {
      const accountId = accountOf.get(hash);
      if (accountId === undefined) return null;
      return documents.mutate(await linkDoc(accountId), (d) => {
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
