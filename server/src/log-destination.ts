// Where the production log goes when no stream was given: stdout, written asynchronously.
// pino's default destination writes each line with a synchronous write(2): on a pipe (a
// container's log driver, systemd, a supervisor) every request's line waited for the reader,
// and that was about a third of a keyed request's time. Here lines are gathered for up to
// FLUSH_MS (or BATCH_BYTES) and handed, joined, to an fs write stream on fd 1 that writes in
// the background, in order.
//
//
// What this changes: a line reaches stdout up to FLUSH_MS after it was logged, not before the
// request is answered. `close()` (the server's last cleanup) waits until every buffered line
// is written, so a clean shutdown loses none; after it, lines are written synchronously again.
// A crash can lose what was still buffered — under load a few milliseconds of lines. If the
// reader stalls, at most `maxBuffered` bytes wait; past that lines are dropped and counted,
// and a line saying how many is written once the reader catches up, rather than the server
// stopping to wait for its log reader (the synchronous writes did).
import { createWriteStream, writeSync } from 'node:fs';

/** Bytes of log lines held while stdout is not read fast enough (16 MiB). */
export const LOG_BUFFER_BYTES = 16 * 1024 * 1024;

/** Where log lines are written, one at a time. */
export type LogStream = { write(line: string): void };

export type LogDestination = LogStream & {
  /** Writes out every buffered line; later lines are written synchronously. */
  close(): Promise<void>;
};

const CLOSE_WAIT_MS = 5_000;
/** A batch is written at the latest this long after its first line… */
const FLUSH_MS = 20;
/** …or as soon as it holds this much. */
const BATCH_BYTES = 64 * 1024;

export function stdoutDestination({ fd = 1, maxBuffered = LOG_BUFFER_BYTES }: { fd?: number; maxBuffered?: number } = {}): LogDestination {
  const out = createWriteStream('', { fd, autoClose: false });
  let closed = false;
  let broken = false;
  let dropped = 0;
  // The batch is kept as strings and handed to the stream as one, so a line costs a push, not
  // a stream write and a buffer of its own.
  let batch: string[] = [];
  let batchBytes = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (batch.length === 0) return;
    const text = batch.join('');
    batch = [];
    batchBytes = 0;
    out.write(text);
  };
  // EPIPE and the like: the reader is gone. Nothing more can be written; the server goes on.
  out.on('error', () => {
    broken = true;
  });
  const droppedLine = () =>
    `${JSON.stringify({ level: 40, time: Date.now(), msg: `dropped ${dropped} log lines: stdout was not read fast enough` })}\n`;
  const writeNow = (line: string) => {
    try {
      writeSync(fd, line);
    } catch {
      // As pino's own destination: a log that cannot be written does not stop the server.
    }
  };
  return {
    write(line) {
      if (broken) return;
      if (closed) return writeNow(line);
      if (out.writableLength + batchBytes > maxBuffered) {
        dropped++;
        return;
      }
      if (batch.length === 0) timer = setTimeout(flush, FLUSH_MS).unref();
      if (dropped > 0) {
        batch.push(droppedLine());
        dropped = 0;
      }
      batch.push(line);
      batchBytes += line.length;
      if (batchBytes >= BATCH_BYTES) flush();
    },
    async close() {
      flush();
      const by = Date.now() + CLOSE_WAIT_MS;
      // Each round waits for an empty write queued behind everything buffered; lines logged
      // meanwhile make another round, so the switch to synchronous writes keeps their order.
      while (!broken && out.writableLength > 0 && Date.now() < by) {
        await Promise.race([
          new Promise<void>((resolve) => out.write('', () => resolve())),
          new Promise<void>((resolve) => setTimeout(resolve, by - Date.now()).unref()),
        ]);
      }
      closed = true;
      if (dropped > 0 && !broken) {
        writeNow(droppedLine());
        dropped = 0;
      }
    },
  };
}
