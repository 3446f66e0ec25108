// The shared devnet's deployment book on PostgreSQL (table `devnet_deployments`, migration
// 0003): read, checked and written in one transaction that holds an advisory lock on the RPC
// URL, so servers attaching together deploy once and the others wait and reuse the record.
import { type DatabaseSource, useDatabase } from './database';

/** The shape @presence/devnet's attachDevnet expects (its DeploymentBook); core does not depend on the devnet. */
export type DeploymentBook = {
  /** Runs `work` with the recorded document (or null) while no other server can; records what it answers, if anything. */
  exclusive(rpcUrl: string, work: (recorded: unknown) => Promise<unknown | null>): Promise<void>;
};

export function createPostgresDeploymentBook(source: DatabaseSource): DeploymentBook & { close(): Promise<void> } {
  const pool = useDatabase(source, 1);
  const sql = pool.sql;
  return {
    async exclusive(rpcUrl, work) {
      await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtextextended(${`devnet-deployment:${rpcUrl}`}, 0))`;
        const [row] = await tx<{ doc: unknown }[]>`SELECT doc FROM devnet_deployments WHERE rpc_url = ${rpcUrl}`;
        const next = await work(row?.doc ?? null);
        if (!next) return;
        await tx`INSERT INTO devnet_deployments (rpc_url, doc) VALUES (${rpcUrl}, ${JSON.stringify(next)}::text::json)
          ON CONFLICT (rpc_url) DO UPDATE SET doc = EXCLUDED.doc, deployed_at = now()`;
      });
    },
    close: () => pool.end(),
  };
}
