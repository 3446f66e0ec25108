// Owns the anvil child process: finding the binary, picking a free loopback port, starting it
// behind a tiny sh wrapper, waiting until it answers, and stopping it. The wrapper is what
// makes "no orphan" hold even when Node is SIGKILLed: it holds anvil's pid and watches the
// stdin pipe that only this process writes to; when the pipe reaches EOF (we stopped it, or
// we died and the kernel closed it) it sends anvil SIGTERM, on which anvil dumps its state.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

const WRAPPER = `
anvil="$1"; shift
# anvil's state dumps are private, like everything else in the data directory.
umask 077
exec 3<&0
"$anvil" "$@" </dev/null 3<&- &
pid=$!
echo "$pid"
# A background list gets /dev/null as stdin, hence the copy on fd 3.
{ cat <&3 >/dev/null; kill -TERM "$pid" 2>/dev/null; } &
exec 3<&-
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT HUP
wait "$pid"; code=$?
# A trapped signal interrupts wait; keep waiting for anvil itself to finish its state dump.
while kill -0 "$pid" 2>/dev/null; do wait "$pid"; code=$?; done
exit "$code"
`;

const PLATFORM_PACKAGES: Record<string, string> = {
  'linux-x64': '@foundry-rs/anvil-linux-amd64',
  'linux-arm64': '@foundry-rs/anvil-linux-arm64',
  'darwin-x64': '@foundry-rs/anvil-darwin-amd64',
  'darwin-arm64': '@foundry-rs/anvil-darwin-arm64',
};

/** The anvil binary shipped by @foundry-rs/anvil's platform package. Resolved by hand because
 * npm may not have run (or approved) the package's postinstall. */
export function anvilBinary(): string {
  const pkg = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`];
  if (!pkg) throw new Error(`no anvil binary package for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  let path: string;
  try {
    path = join(dirname(require.resolve(`${pkg}/package.json`)), 'bin', 'anvil');
  } catch {
    throw new Error(`${pkg} is not installed (it comes with @foundry-rs/anvil as an optional dependency)`);
  }
  accessSync(path, constants.X_OK);
  return path;
}

export async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('could not get a free port'))));
    });
  });
}

export interface AnvilProcess {
  /** anvil's own pid (not the wrapper's). */
  readonly pid: number;
  readonly rpcUrl: string;
  /** Resolves with anvil's exit code when it is gone. */
  readonly exited: Promise<number | null>;
  /** SIGTERM via the wrapper (anvil dumps its state), SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<void>;
}

export class AnvilStartError extends Error {
  override readonly name = 'AnvilStartError';
  constructor(
    message: string,
    readonly stderr: string,
    /** The wrapper's exit code when anvil exited before answering (128 + n: killed by signal n). */
    readonly code: number | null = null,
  ) {
    super(message);
  }
}

export interface SpawnAnvilOptions {
  binary: string;
  port: number;
  /** Everything but --port/--host. */
  args: string[];
  readyTimeoutMs?: number;
  log?: (line: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function answers(rpcUrl: string): Promise<boolean> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      signal: AbortSignal.timeout(1000),
    });
    return res.ok;
  } catch {
    return false;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts anvil and resolves once it answers JSON-RPC; rejects with AnvilStartError (carrying
 * anvil's stderr) if it exits first or does not answer in time. */
export async function spawnAnvil(opts: SpawnAnvilOptions): Promise<AnvilProcess> {
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(
    '/bin/sh',
    ['-c', WRAPPER, 'presence-anvil', opts.binary, '--host', '127.0.0.1', '--port', String(opts.port), ...opts.args],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  // Once running, nothing here should keep Node alive: if the owner forgets stop() and exits,
  // the closed pipe makes the wrapper stop anvil anyway. Starting and stopping hold a ref.
  const handles = [child, child.stdin, child.stdout, child.stderr] as unknown as { ref(): void; unref(): void }[];
  const hold = (on: boolean) => {
    for (const h of handles) on ? h.ref() : h.unref();
  };

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-8192);
    for (const line of chunk.split('\n')) if (line.trim()) opts.log?.(`anvil: ${line.trim()}`);
  });
  child.stdin.on('error', () => {}); // EPIPE when the wrapper is already gone

  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => {
      child.stdin.destroy(); // lets the wrapper's watcher (cat) finish
      resolve(code ?? (signal ? 128 : null));
    });
  });

  const pid = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    const onData = (chunk: string) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n') && line && /^\d+$/.test(line.trim())) {
        child.stdout.off('data', onData);
        child.stdout.resume();
        resolve(Number(line.trim()));
      }
    };
    child.stdout.on('data', onData);
    child.once('error', (err) => reject(new AnvilStartError(`could not start anvil: ${err.message}`, stderr)));
    void exited.then((code) => reject(new AnvilStartError(`anvil wrapper exited (${code}) before reporting a pid`, stderr)));
  });

  let stopping: Promise<void> | null = null;
  const stop = (timeoutMs = 15_000): Promise<void> => {
    stopping ??= (async () => {
      hold(true);
      child.stdin.end();
      let t: NodeJS.Timeout | undefined;
      const timer = new Promise<'timeout'>((r) => {
        t = setTimeout(() => r('timeout'), timeoutMs);
      });
      if ((await Promise.race([exited, timer])) === 'timeout') {
        opts.log?.('devnet: anvil did not stop in time; killing it');
        if (alive(pid)) process.kill(pid, 'SIGKILL');
        child.kill('SIGKILL');
        await exited;
      }
      clearTimeout(t);
    })();
    return stopping;
  };

  const readyBy = Date.now() + (opts.readyTimeoutMs ?? 20_000);
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  while (!(await answers(rpcUrl))) {
    if (gone) {
      const code = await exited;
      throw new AnvilStartError(`anvil exited with code ${code} before answering`, stderr, code);
    }
    if (Date.now() > readyBy) {
      await stop(2000);
      throw new AnvilStartError(`anvil did not answer on ${rpcUrl} in time`, stderr);
    }
    await sleep(20);
  }
  hold(false);
  return { pid, rpcUrl, exited, stop };
}
