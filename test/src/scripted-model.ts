// A scripted OpenAI-compatible chat server on loopback for the `provider:model` planner:
// POST /v1/chat/completions with `stream: true` answers SSE chunks (`data: {choices:[{delta}]}`
// then `data: [DONE]`) — text deltas, tool_calls deltas, HTTP errors or a malformed stream —
// from a queue of steps the test sets up (or a cycle of them, for benchmarks). Every request
// it receives is recorded, so tests can assert what the model saw (messages, tools,
// headers), with the time the server itself spent on it (benchmarks subtract it).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ChatMessage = {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
};

export type ChatRequest = {
  model: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: { type: 'function'; function: { name: string; description?: string; parameters: unknown } }[];
  tool_choice?: unknown;
  [k: string]: unknown;
};

/** `ms`: from the request's arrival to the last byte of the answer written, measured here. */
export type Recorded = { path: string; headers: IncomingHttpHeaders; body: ChatRequest; ms: number };

export type Step =
  /** Text streamed in these pieces, then finish_reason "stop". */
  | { text: string[] }
  /** Tool calls (arguments streamed in two halves), optionally after some text; finish_reason "tool_calls". */
  | { text?: string[]; toolCalls: { name: string; args: Record<string, unknown> }[] }
  /** An HTTP error with a JSON body. */
  | { status: number; body?: unknown }
  /** Raw SSE lines, e.g. a malformed stream. */
  | { raw: string }
  /** No answer at all: the request is recorded and left open (a model that stalls). */
  | { hang: true };

export type StepOrFn = Step | ((req: ChatRequest) => Step);

export async function startScriptedModel() {
  const requests: Recorded[] = [];
  let queue: StepOrFn[] = [];
  let cycle: StepOrFn[] = [];
  let cycled = 0;
  let callSeq = 0;

  const server = createServer((req, res) => {
    const arrived = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
      const recorded: Recorded = { path: req.url, headers: req.headers, body, ms: 0 };
      requests.push(recorded);
      // Its own time only: stops once the answer is handed over, not when the peer reads it.
      const answered = () => {
        recorded.ms = performance.now() - arrived;
      };
      const next = queue.shift() ?? (cycle.length ? (cycle[cycled++ % cycle.length] as StepOrFn) : { text: ['(no more script)'] });
      const step = typeof next === 'function' ? next(body) : next;

      if ('hang' in step) return;
      if ('status' in step) {
        res.writeHead(step.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(step.body ?? { error: { message: `scripted failure ${step.status}`, type: 'server_error' } }));
        answered();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      if ('raw' in step) {
        res.end(step.raw);
        answered();
        return;
      }
      const base = { id: 'chatcmpl-scripted', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
      const send = (delta: Record<string, unknown>, finish: string | null = null) =>
        res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
      send({ role: 'assistant', content: '' });
      for (const piece of step.text ?? []) send({ content: piece });
      const calls = 'toolCalls' in step ? step.toolCalls : [];
      calls.forEach((c, index) => {
        const args = JSON.stringify(c.args);
        const half = Math.ceil(args.length / 2);
        const id = `call_${++callSeq}`;
        send({ tool_calls: [{ index, id, type: 'function', function: { name: c.name, arguments: args.slice(0, half) } }] });
        send({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
      });
      send({}, calls.length ? 'tool_calls' : 'stop');
      res.end('data: [DONE]\n\n');
      answered();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    /** The base URL to give PRESENCE_LLM_BASE_URL. */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Replaces what the next requests get, in order; past the end each request gets a short text. */
    script(...steps: StepOrFn[]) {
      queue = [...steps];
      cycle = [];
      requests.length = 0;
    },
    /** Answers requests with these steps over and over (after any scripted ones), e.g. one turn's worth. */
    repeat(...steps: StepOrFn[]) {
      queue = [];
      cycle = [...steps];
      cycled = 0;
      requests.length = 0;
    },
    get pending() {
      return queue.length;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The tool message answering a call: parsed JSON, or the text of an error the SDK sent instead. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON whose shape the test asserts
export function toolResult(req: ChatRequest, toolName: string): any {
  const call = req.messages.flatMap((m) => m.tool_calls ?? []).find((c) => c.function.name === toolName);
  const msg = req.messages.find((m) => m.role === 'tool' && m.tool_call_id === call?.id);
  if (!msg?.content) return undefined;
  try {
    return JSON.parse(msg.content);
  } catch {
    return msg.content;
  }
}
