import { describe, expect, it } from 'vitest';
import { createSseParser, SseEventTooLarge, type SseItem } from './sse';

const parseAll = (chunks: string[]): SseItem[] => {
  const p = createSseParser();
  return chunks.flatMap((c) => p.push(c));
};

describe('createSseParser', () => {
  it('parses id, event and multi-line data; strips one space after the colon', () => {
    expect(parseAll(['id: 7\nevent: memory\ndata: {"a":\ndata:  1}\n\n'])).toEqual([
      { kind: 'event', event: 'memory', data: '{"a":\n 1}', id: '7' },
    ]);
  });

  it('accepts CRLF and lone CR line ends, also split across chunks', () => {
    expect(parseAll(['data: a\r', '\n\r', '\ndata: b\rdata: c\r\r'])).toEqual([
      { kind: 'event', event: 'message', data: 'a' },
      { kind: 'event', event: 'message', data: 'b\nc' },
    ]);
  });

  it('handles a frame split at any byte', () => {
    const text = 'id: 12\nevent: tx\ndata: {"hash":"0x1"}\n\n: heartbeat\n\n';
    for (let i = 1; i < text.length; i++) {
      expect(parseAll([text.slice(0, i), text.slice(i)])).toEqual([
        { kind: 'event', event: 'tx', data: '{"hash":"0x1"}', id: '12' },
        { kind: 'comment', text: 'heartbeat' },
      ]);
    }
  });

  it('reports comments, retry, and an id-only block; ignores unknown fields and a bad retry', () => {
    expect(parseAll(['\uFEFF: hi\nretry: 1500\nretry: x\nfoo: bar\nid: 9\n\n'])).toEqual([
      { kind: 'comment', text: 'hi' },
      { kind: 'retry', ms: 1500 },
      { kind: 'id', id: '9' },
    ]);
  });

  it('an event without an id field (gap) has no id, even after one with an id', () => {
    const items = parseAll(['id: 3\nevent: memory\ndata: {}\n\nevent: gap\ndata: {"oldest_id":5}\n\n']);
    expect(items[1]).toEqual({ kind: 'event', event: 'gap', data: '{"oldest_id":5}' });
  });

  it('never reports a block the stream cut off', () => {
    expect(parseAll(['id: 4\nevent: memory\ndata: {"key":"to'])).toEqual([]);
  });

  it('a field line without a colon is a field with an empty value; ids with NUL are ignored', () => {
    expect(parseAll(['data\n\nid: a\0b\ndata: x\n\n'])).toEqual([
      { kind: 'event', event: 'message', data: '' },
      { kind: 'event', event: 'message', data: 'x' },
    ]);
  });

  it('does work linear in the input, however long a line and however small the chunks', () => {
    // Work per input character, for one event of 64 KiB … 4 MiB fed 1 KiB at a time, and
    // for many small events. A parser that rescans what it holds (as this one did) grows
    // with the size: about 2,000 per character at 4 MiB.
    const perChar = (text: string, chunk: number) => {
      const p = createSseParser({ maxEventSize: Number.POSITIVE_INFINITY });
      const items: SseItem[] = [];
      for (let i = 0; i < text.length; i += chunk) items.push(...p.push(text.slice(i, i + chunk)));
      expect(items.length).toBeGreaterThan(0);
      return p.work / text.length;
    };
    for (const size of [64, 256, 1024, 4096].map((k) => k * 1024)) {
      expect(perChar(`data: ${'x'.repeat(size)}\n\n`, 1024)).toBeLessThanOrEqual(2);
      expect(perChar(`data: ${'x'.repeat(size)}\r\n\r\n`, 999)).toBeLessThanOrEqual(2); // CRLF split across chunks
    }
    expect(perChar(`data: ${'x'.repeat(64 * 1024)}\r\n\r\n`, 1)).toBeLessThanOrEqual(2);
    const small = Array.from({ length: 10_000 }, (_, i) => `id: ${i}\nevent: memory\ndata: {"key":"topic:${i}"}\n\n`).join('');
    expect(perChar(small, 1024)).toBeLessThanOrEqual(2);
  });

  it('refuses a block over maxEventSize, whether it is one long line or many, and stays refused', () => {
    const big = createSseParser({ maxEventSize: 1000 });
    expect(big.push(`data: ${'x'.repeat(994)}\n\n`)).toHaveLength(1); // 994 + 'data: ' pending at most = 1000
    expect(() => {
      for (let i = 0; i < 100; i++) big.push('x'.repeat(20)); // one line still arriving
    }).toThrow(SseEventTooLarge);
    expect(() => big.push('\n\n')).toThrow(/larger than 1000 characters/);

    const lines = createSseParser({ maxEventSize: 1000 });
    expect(() => lines.push('data: 0123456789\n'.repeat(100))).toThrow(SseEventTooLarge);
    // Many events that are each small are fine, and so are comments.
    const many = createSseParser({ maxEventSize: 1000 });
    expect(many.push('data: 0123456789\n\n: heartbeat\n\n'.repeat(1000))).toHaveLength(2000);
  });
});
