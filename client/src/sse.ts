// A Server-Sent Events parser written to the WHATWG rules: CR, LF or CRLF line ends (also
// split across chunks), a leading BOM, one optional space after the colon, multi-line data,
// comments, `retry`, and ids without NUL. Two deliberate additions for resumable streams:
// an event reports `id` only when its own block carried one (a `gap` carries none), and a
// block with an id but no data is reported as `{ kind: 'id' }` instead of vanishing.
// A block cut off by the end of the stream is never reported: half an event is no event.

export type SseItem =
  | { kind: 'event'; event: string; data: string; id?: string }
  | { kind: 'id'; id: string }
  | { kind: 'retry'; ms: number }
  | { kind: 'comment'; text: string };

export type SseParser = {
  /** Feeds decoded text; returns the items completed by it, in order. */
  push(text: string): SseItem[];
};

export function createSseParser(): SseParser {
  let buffer = '';
  let started = false;
  let data: string[] = [];
  let event = '';
  let id: string | undefined;

  const dispatch = (out: SseItem[]) => {
    if (data.length > 0) {
      out.push({ kind: 'event', event: event || 'message', data: data.join('\n'), ...(id !== undefined ? { id } : {}) });
    } else if (id !== undefined) {
      out.push({ kind: 'id', id });
    }
    data = [];
    event = '';
    id = undefined;
  };

  const line = (text: string, out: SseItem[]) => {
    if (text === '') return dispatch(out);
    if (text.startsWith(':')) {
      out.push({ kind: 'comment', text: text.slice(1).trimStart() });
      return;
    }
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) out.push({ kind: 'retry', ms: Number(value) });
  };

  // A CR ends a line at once; a LF arriving next (maybe in the next chunk) belongs to it.
  let skipLf = false;

  return {
    push(text) {
      buffer += text;
      if (!started && buffer.length > 0) {
        started = true;
        if (buffer.charCodeAt(0) === 0xfeff) buffer = buffer.slice(1);
      }
      const out: SseItem[] = [];
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const c = buffer[i];
        if (skipLf) {
          skipLf = false;
          if (c === '\n') {
            start = i + 1;
            continue;
          }
        }
        if (c !== '\n' && c !== '\r') continue;
        line(buffer.slice(start, i), out);
        skipLf = c === '\r';
        start = i + 1;
      }
      buffer = buffer.slice(start);
      return out;
    },
  };
}
