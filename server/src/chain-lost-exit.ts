// What a serving process does when its embedded devnet is gone for good: the devnet restarts
// an anvil that dies under it (same port, saved state), and gives up only when that cannot
// bring the chain back as it was (devnet/src/supervise.ts). Serving on without a chain would
// answer every wallet call 503 forever while /v1/health looked fine, so the process says why in
// one error line and stops, with its own exit code, for its supervisor (or its user) to start
// it again: a new start brings the devnet back from its data directory. A chain the server only
// attached to (PRESENCE_RPC_URL) is someone else's process and never ends it.

/** The embedded devnet gave up (sysexits' EX_UNAVAILABLE: a service the process needs is gone). */
export const CHAIN_LOST_EXIT_CODE = 69;

/** The error line, with the devnet's own reason. */
export const chainLostMessage = (why: string) =>
  `the embedded devnet is gone: ${why}; stopping with exit code ${CHAIN_LOST_EXIT_CODE} (a new start brings it back from its saved state)`;

/**
 * Once `lost` resolves: the error line, then `stop` with the exit code (a clean shutdown, as on
 * SIGTERM: requests drain, leadership moves on).
 */
export function stopOnChainLost(
  lost: Promise<string>,
  { log, stop }: { log: (fields: { devnet: string }, msg: string) => void; stop: (code: number) => void },
): void {
  void lost.then((why) => {
    try {
      log({ devnet: why }, chainLostMessage(why));
    } catch {
      // The log cannot be written: the exit code still says it.
    }
    stop(CHAIN_LOST_EXIT_CODE);
  });
}
