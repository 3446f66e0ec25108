// Keeps the embedded devnet's anvil running: when it exits on its own (killed, out of memory)
// rather than by stop(), it is started again on the same port from its saved state, so every
// client keeps its RPC URL. What a restart cannot bring back is given up on, once, with the
// reason: the port taken, a state that will not load, a chain without the deployment's code
// (its owner's token list could not follow a redeploy), or too many deaths in a short time
// (something is killing it; restarting forever would only hide that).
import { constants } from 'node:os';
import type { AnvilProcess } from './anvil-process';

export interface SuperviseOptions {
  /** Starts anvil again on the same port; rejects when it cannot. */
  restart(): Promise<AnvilProcess>;
  /** Why the restarted chain cannot be used (deployment's code missing), or null when it can. */
  check(proc: AnvilProcess): Promise<string | null>;
  /** What a restart says it may have lost, for its log line. */
  lossNote: string;
  maxRestarts: number;
  windowMs: number;
  log?: (line: string) => void;
  /** After each restart that brought the chain back (maybe without its last blocks). */
  restarted?: () => void;
}

export interface Supervised {
  /** The anvil running now (a new one after each restart). */
  readonly current: AnvilProcess;
  /** The last anvil's exit code once supervision is over: stopped, or given up. */
  readonly exited: Promise<number | null>;
  /** Resolves with why if supervision gave up; stays pending otherwise. */
  readonly gaveUp: Promise<string>;
  stop(): Promise<void>;
}

/** The wrapper exits with 128 + n when anvil died of signal n (the shell's convention). */
export function describeExit(code: number | null): string {
  if (code === null) return 'no exit code';
  if (code > 128) {
    const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
    return `signal ${name ?? code - 128}`;
  }
  return `code ${code}`;
}

export function superviseAnvil(first: AnvilProcess, opts: SuperviseOptions): Supervised {
  let current = first;
  let stopping = false;
  const deaths: number[] = [];
  let giveUp: (why: string) => void = () => undefined;
  const gaveUp = new Promise<string>((resolve) => {
    giveUp = resolve;
  });

  /** One death: answers the next anvil, or why there is none. */
  async function revive(code: number | null): Promise<AnvilProcess | string> {
    const how = `anvil exited on its own (${describeExit(code)})`;
    const t0 = Date.now();
    while (deaths.length > 0 && (deaths[0] as number) <= t0 - opts.windowMs) deaths.shift();
    if (deaths.length >= opts.maxRestarts)
      return `${how}, after ${deaths.length} restarts within ${Math.round(opts.windowMs / 1000)} s: not restarting it again`;
    deaths.push(t0);
    let next: AnvilProcess;
    try {
      next = await opts.restart();
    } catch (e) {
      return `${how} and could not be restarted: ${(e as Error).message}`;
    }
    const problem = stopping ? null : await opts.check(next).catch((e: Error) => `its chain did not answer (${e.message})`);
    if (problem) {
      await next.stop();
      return `${how}; restarted, but ${problem}`;
    }
    opts.log?.(`devnet: ${how}; restarted from its saved state in ${Date.now() - t0} ms — ${opts.lossNote}`);
    return next;
  }

  const exited = (async () => {
    for (;;) {
      const code = await current.exited;
      if (stopping) return code;
      const next = await revive(code);
      // A stop() that came during the restart stopped the dead one: a new one is its to stop too.
      if (stopping) {
        if (typeof next === 'string') return code;
        await next.stop();
        return next.exited;
      }
      if (typeof next === 'string') {
        opts.log?.(`devnet: gave up: ${next}`);
        giveUp(next);
        return code;
      }
      current = next;
      opts.restarted?.();
    }
  })();

  return {
    get current() {
      return current;
    },
    exited,
    gaveUp,
    async stop() {
      stopping = true;
      await current.stop();
      await exited;
    },
  };
}
