import { describe, expect, it } from 'vitest';
import { createSerial } from './serial';

describe('serial', () => {
  it('runs one key in order, past a failure, without holding up other keys', async () => {
    const q = createSerial<string>();
    const seen: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const a1 = q.run('a', async () => {
      await gate;
      seen.push('a1');
      throw new Error('no');
    });
    const a2 = q.run('a', async () => {
      seen.push('a2');
      return 2;
    });
    await q.run('b', async () => seen.push('b'));
    expect(seen).toEqual(['b']);
    release();
    await expect(a1).rejects.toThrow('no');
    expect(await a2).toBe(2);
    await q.idle();
    expect(seen).toEqual(['b', 'a1', 'a2']);
  });
});
