import { describe, expect, it } from 'vitest';
import { retryAfter } from './retry-after';

type Res = { ok: boolean; error_code?: number; description?: string; parameters?: { retry_after?: number }; result?: unknown };

function run(answers: Res[], options: Parameters<typeof retryAfter>[0] = {}) {
  const slept: number[] = [];
  let calls = 0;
  const transformer = retryAfter({ ...options, sleep: async (ms) => void slept.push(ms) });
  const prev = (async () => answers[Math.min(calls++, answers.length - 1)]) as never;
  return { result: transformer(prev, 'sendMessage' as never, {} as never), slept, calls: () => calls };
}

const tooMany = (s: number): Res => ({ ok: false, error_code: 429, description: 'Too Many Requests', parameters: { retry_after: s } });

describe('retryAfter', () => {
  it('waits as long as Telegram asks, then succeeds', async () => {
    const r = run([tooMany(2), tooMany(1), { ok: true, result: 1 }]);
    expect(await r.result).toEqual({ ok: true, result: 1 });
    expect(r.slept).toEqual([2000, 1000]);
  });

  it('gives up after maxRetries or when the wait is too long, passing the 429 on', async () => {
    const many = run([tooMany(1)], { maxRetries: 2 });
    expect(await many.result).toMatchObject({ error_code: 429 });
    expect(many.calls()).toBe(3);
    const long = run([tooMany(3600)], { maxDelayS: 60 });
    expect(await long.result).toMatchObject({ error_code: 429 });
    expect(long.slept).toEqual([]);
  });

  it('does not retry other errors', async () => {
    const r = run([{ ok: false, error_code: 400, description: 'Bad Request' }]);
    expect(await r.result).toMatchObject({ error_code: 400 });
    expect(r.calls()).toBe(1);
  });
});
