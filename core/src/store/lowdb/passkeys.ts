// The passkeys port on the embedded store: two append-only logs under data/passkeys/
// (credentials, tickets), each record a line, the newest line of a record winning. All of it is
// held in memory (one process owns the data directory): a compare-and-set decides on the map
// synchronously, so two calls never both win, and then appends the record's new line. Expired
// tickets are dropped by `pruneTickets`, which rewrites the tickets log with what is left.
import path from 'node:path';
import { PasskeyCredentialRecord, PasskeyTicketRecord } from '../../passkeys/passkey-records';
import type { PasskeyStorePort } from '../../passkeys/passkey-store-port';
import { createAppendLog } from '../append-log';

export async function createLowdbPasskeyStore({ dataDir, fsync = true }: { dataDir: string; fsync?: boolean }): Promise<PasskeyStorePort> {
  const dir = path.join(dataDir, 'data', 'passkeys');
  const credentialLog = createAppendLog(path.join(dir, 'credentials.jsonl'), PasskeyCredentialRecord, { fsync });
  const ticketLog = createAppendLog(path.join(dir, 'tickets.jsonl'), PasskeyTicketRecord, { fsync });
  const credentials = new Map<string, PasskeyCredentialRecord>();
  for (const c of await credentialLog.readAll()) credentials.set(c.credential_id, c);
  const tickets = new Map<string, PasskeyTicketRecord>();
  for (const t of await ticketLog.readAll()) tickets.set(t.hash, t);

  const live = (c: PasskeyCredentialRecord | undefined) => (c && c.deleted_at === null ? c : null);
  const saveCredential = async (c: PasskeyCredentialRecord) => {
    credentials.set(c.credential_id, c);
    await credentialLog.append([c]);
    return c;
  };
  const saveTicket = async (t: PasskeyTicketRecord) => {
    tickets.set(t.hash, t);
    await ticketLog.append([t]);
    return t;
  };
  const open = (t: PasskeyTicketRecord | undefined, now: number) => (t && t.used_at === null && t.expires_at > now ? t : null);

  return {
    async insertCredential(c) {
      if (credentials.has(c.credential_id)) return false;
      await saveCredential(c);
      return true;
    },
    async findCredential(id) {
      return live(credentials.get(id));
    },
    async listCredentials(accountId) {
      return [...credentials.values()]
        .filter((c) => c.account_id === accountId && c.deleted_at === null)
        .sort((a, b) => a.created_at - b.created_at);
    },
    async recordUse(id, counter, at) {
      const c = live(credentials.get(id));
      if (!c || !(counter > c.counter || (counter === 0 && c.counter === 0))) return null;
      return saveCredential({ ...c, counter, last_used_at: at });
    },
    async deleteCredential(accountId, id, at) {
      const c = [...credentials.values()].find((x) => x.id === id && x.account_id === accountId && x.deleted_at === null);
      return c ? saveCredential({ ...c, deleted_at: at }) : null;
    },
    async putTicket(t) {
      const stored = tickets.get(t.hash);
      return stored ?? saveTicket(t);
    },
    async getTicket(hash) {
      return tickets.get(hash) ?? null;
    },
    async setChallenge(hash, challenge, now) {
      const t = open(tickets.get(hash), now);
      return t ? saveTicket({ ...t, challenge }) : null;
    },
    async takeChallenge(hash, now) {
      const t = open(tickets.get(hash), now);
      if (!t || t.challenge === null) return null;
      await saveTicket({ ...t, challenge: null });
      return t;
    },
    async useTicket(hash, now) {
      const t = open(tickets.get(hash), now);
      return t ? saveTicket({ ...t, used_at: now, challenge: null }) : null;
    },
    async countOpenEnrollTickets(accountId, now) {
      let n = 0;
      for (const t of tickets.values()) if (t.kind === 'enroll' && t.account_id === accountId && open(t, now)) n++;
      return n;
    },
    async pruneTickets(before) {
      const gone = [...tickets.values()].filter((t) => t.expires_at < before);
      if (gone.length === 0) return 0;
      for (const t of gone) tickets.delete(t.hash);
      await ticketLog.rewrite(() => [...tickets.values()]);
      return gone.length;
    },
    async close() {
      await credentialLog.close();
      await ticketLog.close();
    },
  };
}
