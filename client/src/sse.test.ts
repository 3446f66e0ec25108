import { describe, expect, it } from 'vitest';
import { createSseParser, type SseItem } from './sse';

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
});
