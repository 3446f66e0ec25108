// grammY hands transformers the `abort-controller` polyfill's signals; combining one with ours
// must work on every Node we run on (Node 24's AbortSignal.any refuses a polyfill by brand).
import { AbortController as PolyfillController } from 'abort-controller';
import { describe, expect, it } from 'vitest';
import { anySignal } from './abortable';

describe('anySignal', () => {
  it("takes a polyfill's signal beside a platform one, and aborts with whichever aborts first", () => {
    const theirs = new PolyfillController();
    const ours = new AbortController();
    const both = anySignal(theirs.signal as unknown as AbortSignal, ours.signal, undefined);
    expect(both.aborted).toBe(false);
    theirs.abort();
    expect(both.aborted).toBe(true);
    const again = anySignal(new PolyfillController().signal as unknown as AbortSignal, ours.signal);
    ours.abort('stop');
    expect([again.aborted, again.reason]).toEqual([true, 'stop']);
  });

  it('is aborted at once when a signal given is', () => {
    const done = new PolyfillController();
    done.abort();
    expect(anySignal(done.signal as unknown as AbortSignal).aborted).toBe(true);
  });
});
