// The request line the logger writes by hand is the line pino would write: the same members in
// the same order, the same values (a line pino writes through the same logger, for the same
// request, is the reference), in both formats.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { productionLogging, redactUrl } from './logger';

async function linesFor(format: 'json' | 'pretty', url: string) {
  const lines: string[] = [];
  const logging = productionLogging('info', format, { write: (l) => void lines.push(l) }, { server: 'host:1' });
  const app = Fastify({ ...logging.options });
  app.get('/v1/*', async (request, reply) => {
    // What pino itself writes for this request, through the request's own logger.
    request.log.info({ req: request, res: reply, responseTime: 1.5 }, 'request completed');
    return { ok: true };
  });
  await app.inject({ method: 'GET', url, headers: { host: 'presence.test' } });
  await app.close();
  return lines;
}

describe('the request line', () => {
  it('is the JSON pino writes: same members, same order, same values', async () => {
    const [pinos, ours] = (await linesFor('json', '/v1/links/SECRETCODE/redeem?x="q"')).map((l) => JSON.parse(l));
    expect(Object.keys(ours)).toEqual(Object.keys(pinos));
    expect(Object.keys(ours.req)).toEqual(Object.keys(pinos.req));
    expect({ ...ours, time: 0, responseTime: 0 }).toEqual({ ...pinos, time: 0, responseTime: 0 });
    expect(ours.req.url).toBe('/v1/links/[redacted]');
    expect(ours.server).toBe('host:1');
    expect(typeof ours.responseTime).toBe('number');
  });

  it('reads the same in the readable format', async () => {
    const [pinos, ours] = await linesFor('pretty', '/v1/x');
    const strip = (l: string | undefined) => l?.replace(/\d+(\.\d+)? ?ms/, 'T ms').replace(/^\S+/, 'TIME');
    expect(strip(ours)).toBe(strip(pinos));
  });
});

describe('redactUrl', () => {
  it('hides a passkey link’s token, whatever follows it or however it is escaped', () => {
    expect(redactUrl('/approve/TOKEN123')).toBe('/approve/[redacted]');
    expect(redactUrl('/approve/TOKEN123/options?x=1')).toBe('/approve/[redacted]');
    expect(redactUrl('/enroll/TOKEN123')).toBe('/enroll/[redacted]');
    expect(redactUrl('/%61pprove/TOKEN123')).toBe('/approve/[redacted]');
    expect(redactUrl('/assets/passkeys/page.js')).toBe('/assets/passkeys/page.js');
  });
});
