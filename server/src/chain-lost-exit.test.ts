// The embedded devnet gone for good: one error line with the devnet's reason, then a stop with
// exit code 69; a chain that is never lost (pending) never stops anything. The whole path, from
// a killed anvil to the process's exit code, is test/src/devnet-supervision.test.ts.
import { describe, expect, it } from 'vitest';
import { CHAIN_LOST_EXIT_CODE, stopOnChainLost } from './chain-lost-exit';

describe('stopOnChainLost', () => {
  it('logs why in one line, then stops with its own exit code', async () => {
    const lines: { fields: { devnet: string }; msg: string }[] = [];
    const stopped = new Promise<number>((stop) =>
      stopOnChainLost(Promise.resolve('anvil exited on its own (signal SIGKILL), after 3 restarts'), {
        log: (fields, msg) => lines.push({ fields, msg }),
        stop,
      }),
    );
    expect(await stopped).toBe(69);
    expect(CHAIN_LOST_EXIT_CODE).toBe(69);
    expect(lines).toEqual([
      {
        fields: { devnet: 'anvil exited on its own (signal SIGKILL), after 3 restarts' },
        msg: 'the embedded devnet is gone: anvil exited on its own (signal SIGKILL), after 3 restarts; stopping with exit code 69 (a new start brings it back from its saved state)',
      },
    ]);
  });

  it('still stops when the log cannot be written', async () => {
    const stopped = new Promise<number>((stop) =>
      stopOnChainLost(Promise.resolve('gone'), {
        log: () => {
          throw new Error('EPIPE');
        },
        stop,
      }),
    );
    expect(await stopped).toBe(CHAIN_LOST_EXIT_CODE);
  });

  it('does nothing while the chain is not lost', async () => {
    let calls = 0;
    stopOnChainLost(new Promise<string>(() => undefined), { log: () => calls++, stop: () => calls++ });
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toBe(0);
  });
});
