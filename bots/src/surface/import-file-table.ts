// Moving from the file table to PostgreSQL: at the first start with PRESENCE_BOTS_DATABASE_URL,
// when the database holds no link yet and the data directory has a file table (links.jsonl,
// or an earlier version's links.json), its users are copied in, read through the file store
// itself (which carries a links.json over first). A link with a kept key is first moved over
// to the surface token (adopted; the secret stays behind in the file), so the shared table
// never holds a secret. The file table is left otherwise as it was; cards and cursors start
// afresh (events are replayed from each user's last id).
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { PresenceClient } from '@presence/client';
import { LEGACY_LINKS_FILE, LINKS_FILE, openLinkStore } from './link-store';
import type { Log } from './logging';
import type { PgLinkStore } from './pg-link-store';

export async function importFileTable(o: { dataDir: string; into: PgLinkStore; client: PresenceClient; log: Log }) {
  const hasFileTable = [LINKS_FILE, LEGACY_LINKS_FILE].some((f) => existsSync(path.join(o.dataDir, f)));
  if (o.into.list().length > 0 || !hasFileTable) return;
  const file = await openLinkStore(o.dataDir);
  let copied = 0;
  try {
    for (const link of file.list()) {
      const owner = `${link.surface}:${link.user_id}`;
      try {
        if (link.sealed_key !== undefined) await o.client.surface.adopt({ key: file.keyOf(owner), surface_user: link.user_id });
        const { sealed_key: _kept, ...rest } = link;
        await o.into.link(owner, rest, null);
        copied++;
      } catch (e) {
        o.log('warn', "could not copy a link into the bots' table in PostgreSQL (it stays in the file table)", {
          user: owner,
          error: String(e),
        });
      }
    }
  } finally {
    await file.close();
  }
  o.log('info', 'copied the file link table into PostgreSQL', { links: copied, from: o.dataDir });
}
