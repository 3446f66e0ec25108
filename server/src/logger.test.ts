// The request line the logger writes by hand is the line pino would write: the same members in
// the same order, the same values (a line pino writes through the same logger, for the same
// request, is the reference), in both formats.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { prettyLines, productionLogging } from './logger';

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
    expect(ours.req.url).toBe('/v1/*');
    expect(ours.server).toBe('host:1');
    expect(typeof ours.responseTime).toBe('number');
  });

  it('reads the same in the readable format', async () => {
    const [pinos, ours] = await linesFor('pretty', '/v1/x');
    const strip = (l: string | undefined) => l?.replace(/\d+(\.\d+)? ?ms/, 'T ms').replace(/^\S+/, 'TIME');
    expect(strip(ours)).toBe(strip(pinos));
  });
});

describe('an error in the readable format', () => {
  it('reads as the JSON line says it: type, message, code, then each cause', () => {
    const out: string[] = [];
    const err = {
      type: 'chain_unavailable',
      detail: 'balances: the chain RPC is unreachable',
      cause: [
        { type: 'HttpRequestError', message: 'HTTP request failed. | URL: https://rpc.example/…', status: 429 },
        { type: 'Error', message: 'connect ECONNREFUSED 10.0.0.1:443', code: 'ECONNREFUSED' },
      ],
    };
    prettyLines({ write: (l) => void out.push(l) }).write(JSON.stringify({ level: 40, time: 0, err, msg: 'answered with a 5xx problem' }));
    expect(out[0]).toMatch(
      / warn answered with a 5xx problem \(chain_unavailable: balances: the chain RPC is unreachable <- HttpRequestError: HTTP request failed\. \| URL: https:\/\/rpc\.example\/… \[429\] <- Error: connect ECONNREFUSED 10\.0\.0\.1:443 \[ECONNREFUSED\]\)\n$/,
    );
  });
});
