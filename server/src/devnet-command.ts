// `presence-server devnet`: the shared devnet of a deployment with many servers. It runs anvil
// exactly as the embedded devnet does (chain id, mnemonic, balances, hardfork: the devnet
// module's DEVNET_ANVIL_ARGS), in the foreground, until SIGINT or SIGTERM; the servers attach
// with PRESENCE_CHAIN=devnet PRESENCE_RPC_URL=<the printed URL>, and the first one deploys
// the market. anvil runs behind the devnet's wrapper, so it never outlives this process.
import { loadDevnet } from './load-devnet';

export type DevnetCommandOptions = {
  port: number;
  statePath?: string;
  out(line: string): void;
};

/** Resolves with the exit code once anvil has stopped (on a signal, or on its own). */
export async function runDevnet({ port, statePath, out }: DevnetCommandOptions): Promise<number> {
  const chain = await loadDevnet();
  const args = [...chain.DEVNET_ANVIL_ARGS, ...(statePath ? ['--state', statePath, '--state-interval', '5'] : [])];
  const anvil = await chain.spawnAnvil({
    binary: chain.anvilBinary(),
    port: port === 0 ? await chain.freeLoopbackPort() : port,
    args,
    log: (line) => out(line),
  });
  out(`devnet: ${anvil.rpcUrl}`);
  out(`start servers with PRESENCE_CHAIN=devnet PRESENCE_RPC_URL=${anvil.rpcUrl}; Ctrl-C stops the chain`);
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    // Not awaited: a signal handler has no one to answer, and `anvil.exited` below is what this
    // command waits for (stop() settles when anvil has gone, killing it if need be).
    void anvil.stop();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // The anvil handle does not keep Node alive (so a forgotten one cannot hang a server's exit); this does.
  const alive = setInterval(() => undefined, 60_000);
  const code = await anvil.exited;
  clearInterval(alive);
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  if (!stopping) out(`devnet: anvil exited on its own (code ${code})`);
  return stopping ? 0 : (code ?? 1);
}
