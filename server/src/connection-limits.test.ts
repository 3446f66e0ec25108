import { describe, expect, it } from 'vitest';
import { FD_RESERVE, resolveConnectionLimits } from './connection-limits';

const none = { connections: undefined, streams: undefined };

describe('connection limits against the open-file limit', () => {
  it('defaults to 2,000 connections and 1,000 streams when the limit allows', () => {
    expect(resolveConnectionLimits(none, 20_000)).toEqual({ connections: 2000, streams: 1000 });
    expect(resolveConnectionLimits(none, null)).toEqual({ connections: 2000, streams: 1000 });
  });

  it('lowers the defaults to fit a small limit', () => {
    expect(resolveConnectionLimits(none, 1024)).toEqual({ connections: 1024 - FD_RESERVE, streams: 384 });
  });

  it('refuses explicit values the limit cannot hold, or that leave no room beside the streams', () => {
    expect(() => resolveConnectionLimits({ connections: 1000, streams: undefined }, 1024)).toThrow(
      /^invalid PRESENCE_MAX_CONNECTIONS=1000: the open-file limit \(ulimit -n\) is 1024/,
    );
    expect(() => resolveConnectionLimits({ connections: 500, streams: 450 }, 20_000)).toThrow(/^invalid PRESENCE_MAX_STREAMS=450: /);
    expect(() => resolveConnectionLimits(none, 300)).toThrow(/^invalid PRESENCE_MAX_CONNECTIONS=44: at least 200/);
    expect(resolveConnectionLimits({ connections: 500, streams: 400 }, 20_000)).toEqual({ connections: 500, streams: 400 });
  });
});
