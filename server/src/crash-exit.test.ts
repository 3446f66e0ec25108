// An error nobody handled, on a stand-in process: one fatal line through the production logger
// (the server's bindings, no stack, nothing of a rejected object but its kind), the log flushed,
// then the crash's own exit code, whatever else fails on the way.
import { EventEmitter } from 'node:events';
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { CRASH_EXIT_CODE, type CrashingProcess, crashCause, exitOnCrash, type FatalLog } from './crash-exit';
import { productionLogging } from './logger';

/** A process whose `exit` is recorded instead of taken. */
function standIn() {
  const events = new EventEmitter();
  let exited: (code: number) => void = () => {};
  const exit = new Promise<number>((resolve) => {
    exited = resolve;
  });
  const proc: CrashingProcess & { emit(event: string, arg: unknown): boolean } = {
    on: (event, listener) => events.on(event, listener),
    emit: (event, arg) => events.emit(event, arg),
    exit: (code: number) => exited(code),
    exitCode: undefined,
  };
  return { proc, exit };
}

/** The production logger (JSON, the server's bindings) writing into an array. */
function jsonLog() {
  const lines: string[] = [];
  const app = Fastify(productionLogging('info', 'json', { write: (l) => lines.push(l) }, { server: 'host-8801' }).options);
  const log: FatalLog = (fields, msg) => app.log.fatal(fields, msg);
  return { lines, log };
}

describe('exitOnCrash', () => {
  it.each([
    ['unhandledRejection', 'unhandled rejection'],
    ['uncaughtException', 'uncaught exception'],
  ] as const)('%s: one fatal JSON line with its context, the log flushed, then the crash exit code', async (origin, words) => {
    const { proc, exit } = standIn();
    const { lines, log } = jsonLog();
    const steps: string[] = [];
    exitOnCrash(proc, {
      log: (fields, msg) => {
        log(fields, msg);
        steps.push('logged');
      },
      flush: async () => {
        steps.push('flushed');
      },
    });
    const err = Object.assign(new Error('connection terminated'), { code: 'ECONNRESET' });
    proc.emit(origin, err);

    expect(await exit).toBe(CRASH_EXIT_CODE);
    expect(proc.exitCode).toBe(CRASH_EXIT_CODE);
    expect(steps).toEqual(['logged', 'flushed']);
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] as string);
    expect(line).toMatchObject({
      level: 60,
      server: 'host-8801',
      pid: process.pid,
      origin,
      err: { type: 'Error', message: 'connection terminated', code: 'ECONNRESET' },
    });
    expect(line.msg).toContain(words);
    expect(line.msg).toContain(String(CRASH_EXIT_CODE));
    expect(lines[0]).not.toContain('stack');
    expect(lines[0]).not.toContain('crash-exit');
  });

  it('says only the kind of a rejected value that is not an Error', () => {
    expect(crashCause({ apiKey: 'pk_live_secret', body: 'private' })).toEqual({ type: 'Object' });
    expect(crashCause(undefined)).toEqual({ type: 'undefined' });
    expect(crashCause(42)).toEqual({ type: '42' });
    expect(crashCause('timed out')).toEqual({ type: 'string', message: 'timed out' });
    class Response {
      secret = 'x';
    }
    expect(crashCause(new Response())).toEqual({ type: 'Response' });
  });

  it('exits with the crash code when the log throws, the flush hangs and a second failure follows', async () => {
    const { proc, exit } = standIn();
    const log = vi.fn(() => {
      throw new Error('stdout is gone');
    });
    exitOnCrash(proc, { log, flush: () => new Promise(() => {}), flushWaitMs: 10 });
    proc.emit('unhandledRejection', new Error('first'));
    proc.emit('uncaughtException', new Error('while reporting the first'));

    expect(await exit).toBe(CRASH_EXIT_CODE);
    expect(log).toHaveBeenCalledTimes(1);
  });
});
