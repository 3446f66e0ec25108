// The master key's check value in the database (table master_key_check, one row): see
// store/master-key-check.ts. A short-lived connection of its own, used at start and by
// rotate-master-key; servers starting together agree through INSERT … ON CONFLICT DO NOTHING.
import postgres from 'postgres';
import type { MasterKeyCheck, MasterKeyCheckPort } from '../master-key-check';

type Row = { check_value: string; rotating_to: string | null };
const toCheck = (r: Row): MasterKeyCheck => ({ check: r.check_value, rotating_to: r.rotating_to || undefined });

export function postgresMasterKeyCheck(url: string): MasterKeyCheckPort {
  const sql = postgres(url, { max: 1, onnotice: () => undefined, connect_timeout: 10 });
  const read = async () => {
    const [row] = await sql<Row[]>`SELECT check_value, rotating_to FROM master_key_check`;
    return row ? toCheck(row) : null;
  };
  return {
    read,
    async init(value) {
      await sql`INSERT INTO master_key_check (check_value, rotating_to) VALUES (${value.check}, ${value.rotating_to ?? null})
                ON CONFLICT (id) DO NOTHING`;
      return (await read()) as MasterKeyCheck;
    },
    async write(value) {
      await sql`INSERT INTO master_key_check (check_value, rotating_to) VALUES (${value.check}, ${value.rotating_to ?? null})
                ON CONFLICT (id) DO UPDATE SET check_value = EXCLUDED.check_value, rotating_to = EXCLUDED.rotating_to, written_at = now()`;
    },
    close: () => sql.end(),
  };
}
