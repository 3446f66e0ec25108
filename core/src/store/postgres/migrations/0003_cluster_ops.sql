-- Operations of a deployment with many servers. `devnet_deployments`: the devnet contracts the
-- first server deployed on a shared anvil (PRESENCE_CHAIN=devnet with PRESENCE_RPC_URL), so
-- every other server trades on the same ones. Keyed by the chain's RPC URL (a deployment
-- belongs to one anvil); `doc` is the deployment record as core wrote it (a TokenList plus
-- devnet bookkeeping), validated on the way out like every other document.
CREATE TABLE devnet_deployments (
  rpc_url text PRIMARY KEY,
  doc json NOT NULL,
  deployed_at timestamptz NOT NULL DEFAULT now()
);
