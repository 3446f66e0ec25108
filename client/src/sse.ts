// A Server-Sent Events parser written to the WHATWG rules: CR, LF or CRLF line ends (also
// split across chunks), a leading BOM, one optional space after the colon, multi-line data,
// comments, `retry`, and ids without NUL. Two deliberate additions for resumable streams:
// an event reports `id` only when its own block carried one (a `gap` carries none), and a
// block with an id but no data is reported as `{ kind: 'id' }` instead of vanishing.
// A block cut off by the end of the stream is never reported: half an event is no event.
//
// Work is linear in the input: each chunk is scanned once, from where it starts, and the
// pieces of a line that spans chunks are kept apart and joined once when it ends (rescanning
// a growing buffer made a 4 MB line in 1 KB chunks cost 35 s). One block may hold at most
// `maxEventSize` characters; past that `push` throws SseEventTooLarge and the parser is done.
// (eventsource-parser is as fast, but drops id-only blocks, which carry a live stream's cursor.)

export type SseItem =
  | { kind: 'event'; event: string; data: string; id?: string }
  | { kind: 'id'; id: string }
  | { kind: 'retry'; ms: number }
  | { kind: 'comment'; text: string };

export type SseParser = {
  /** Feeds decoded text; returns the items completed by it, in order. */
  push(text: string): SseItem[];
  /** Characters examined or copied so far: about twice the input at most, whatever the chunking (a test holds it to that). */
  readonly work: number;
};

export type SseParserOptions = {
  /** Characters one block (an event, its fields and any line still arriving) may hold. Default 1 MiB. */
  maxEventSize?: number;
};

export const DEFAULT_MAX_EVENT_SIZE = 1024 * 1024;

/** One block grew past the limit; the stream must be given up (reading on would mean buffering it). */
export class SseEventTooLarge extends Error {
  override readonly name = 'SseEventTooLarge';
  readonly limit: number;
  constructor(limit: number) {
    super(`an event is larger than ${limit} characters`);
    this.limit = limit;
  }
}

const LF = 10;

export function createSseParser(options: SseParserOptions = {}): SseParser {
  const maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  let started = false;
  let failed: SseEventTooLarge | undefined;
  let work = 0;
  // The line still arriving, as the pieces the chunks brought.
  let pending: string[] = [];
  let pendingSize = 0;
  // A CR ends a line at once; a LF arriving next (maybe in the next chunk) belongs to it.
  let skipLf = false;
  let data: string[] = [];
  let dataSize = 0;
  let event = '';
  let id: string | undefined;

  const dispatch = (out: SseItem[]) => {
    if (data.length > 0) {
      out.push({ kind: 'event', event: event || 'message', data: data.join('\n'), id });
    } else if (id !== undefined) {
      out.push({ kind: 'id', id });
    }
    data = [];
    dataSize = 0;
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
    if (field === 'data') {
      dataSize += value.length + (data.length > 0 ? 1 : 0); // the length of data.join('\n')
      data.push(value);
    } else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) out.push({ kind: 'retry', ms: Number(value) });
  };

  const check = () => {
    if (dataSize + pendingSize + event.length + (id?.length ?? 0) <= maxEventSize) return;
    failed = new SseEventTooLarge(maxEventSize);
    pending = [];
    data = [];
    throw failed;
  };

  return {
    get work() {
      return work;
    },
    push(text) {
      if (failed) throw failed;
      if (!started && text.length > 0) {
        started = true;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      const out: SseItem[] = [];
      const end = text.length;
      let start = 0;
      // Where the next LF and CR are, each found by one forward search (-1: none left).
      let lf = -2;
      let cr = -2;
      while (start < end) {
        if (skipLf) {
          skipLf = false;
          if (text.charCodeAt(start) === LF && ++start === end) break;
        }
        if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
        if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
        const eol = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
        if (eol === -1) break;
        const piece = text.slice(start, eol);
        if (pendingSize > 0) {
          pending.push(piece);
          work += pendingSize + piece.length;
          line(pending.join(''), out);
          pending = [];
          pendingSize = 0;
        } else {
          line(piece, out);
        }
        if (dataSize > 0) check();
        skipLf = eol === cr;
        start = eol + 1;
      }
      work += text.length;
      if (start < end) {
        pending.push(text.slice(start));
        pendingSize += end - start;
      }
      check();
      return out;
    },
  };
}
