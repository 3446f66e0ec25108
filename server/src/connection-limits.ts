// How many connections and open streams the process may hold, against its open-file limit.
// Every connection is a file descriptor, and so is every file the store keeps open (lowdb:
// at most MAX_OPEN_ACCOUNT_LOGS of its per-account logs, and a few files of its own), the
// devnet's pipes and the RPC sockets. Past
// the limit accept() fails and so does opening a file: health stops answering and writes
// fail. So connections are capped below the limit with FD_RESERVE left for the rest, and
// streams below the connection cap with STREAM_HEADROOM left for health checks and writes.
// (Node raises the soft limit to the hard one when it starts: `ulimit -Hn` is what counts.)
import { readFileSync } from 'node:fs';

export const FD_RESERVE = 256;
export const STREAM_HEADROOM = 100;
const DEFAULT_CONNECTIONS = 2000;
const DEFAULT_STREAMS = 1000;

/** This process's open-file limit (Linux), or null where it cannot be read. */
export function readOpenFileLimit(): number | null {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = line?.split(/\s{2,}/)[1];
    if (soft === 'unlimited') return Number.POSITIVE_INFINITY;
    const n = Number(soft);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

export type ConnectionLimits = { connections: number; streams: number };

/**
 * Explicit values are checked against the limit; missing ones default to 2,000 connections
 * (or the open-file limit less FD_RESERVE, if lower) and 1,000 streams (or half the
 * connections, if lower). Throws a one-line message naming the variable.
 */
export function resolveConnectionLimits(
  set: { connections: number | undefined; streams: number | undefined },
  openFiles: number | null,
): ConnectionLimits {
  const room = openFiles === null ? Number.POSITIVE_INFINITY : openFiles - FD_RESERVE;
  const ulimit = `the open-file limit (ulimit -n) is ${openFiles}, and ${FD_RESERVE} descriptors stay for files and the chain`;
  if (set.connections !== undefined && set.connections > room) {
    throw new Error(`invalid PRESENCE_MAX_CONNECTIONS=${set.connections}: ${ulimit}; lower it or raise the limit`);
  }
  const connections = set.connections ?? Math.min(DEFAULT_CONNECTIONS, room);
  if (connections < 2 * STREAM_HEADROOM) {
    throw new Error(`invalid PRESENCE_MAX_CONNECTIONS=${connections}: at least ${2 * STREAM_HEADROOM} are needed (${ulimit})`);
  }
  if (set.streams !== undefined && set.streams > connections - STREAM_HEADROOM) {
    throw new Error(
      `invalid PRESENCE_MAX_STREAMS=${set.streams}: it must leave ${STREAM_HEADROOM} of the ${connections} connections (PRESENCE_MAX_CONNECTIONS) for health checks and writes`,
    );
  }
  const streams = set.streams ?? Math.min(DEFAULT_STREAMS, Math.floor(connections / 2));
  return { connections, streams };
}
