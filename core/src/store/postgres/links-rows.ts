// Link codes on PostgreSQL (table links), by hash: made with the expired ones dropped in
// the same transaction, redeemed by a single compare-and-set UPDATE.
import { LinkRecord } from '../documents';
import type { LinksPort } from '../links-port';
import { type Doc, json } from './records';
import type { Runner } from './unit-of-work';

export function linksRows(run: Runner): LinksPort {
  const { sql, begin } = run;
  return {
    async putLink(link, now) {
      await begin(async (tx) => {
        await tx`DELETE FROM links WHERE expires_at <= ${now}`;
        await tx`INSERT INTO links (hash, expires_at, redeemed_at, doc)
        VALUES (${link.hash}, ${link.expires_at}, ${link.redeemed_at}, ${json(link)}::text::json)
        ON CONFLICT (hash) DO UPDATE SET expires_at = EXCLUDED.expires_at, redeemed_at = EXCLUDED.redeemed_at, doc = EXCLUDED.doc`;
      });
    },
    async redeemLink(hash, now) {
      const [row] = await sql<(Doc & { redeemed_at: number })[]>`UPDATE links SET redeemed_at = ${now}
      WHERE hash = ${hash} AND redeemed_at IS NULL AND expires_at > ${now}
      RETURNING doc, redeemed_at`;
      return row ? LinkRecord.parse({ ...(row.doc as object), redeemed_at: row.redeemed_at }) : null;
    },
    async countOutstandingLinks(accountId, now) {
      // Expired rows are deleted as codes are made, so the scan is over live codes only.
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM links
      WHERE doc->>'account_id' = ${accountId} AND redeemed_at IS NULL AND expires_at > ${now}`;
      return row?.n ?? 0;
    },
  };
}
