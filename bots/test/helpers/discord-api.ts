// A loopback Discord for tests: the REST routes the bot calls (under /api/v10) and a
// WebSocket gateway on the same port (HELLO → IDENTIFY → READY, heartbeat ACKs), through
// which the test pushes MESSAGE_CREATE and INTERACTION_CREATE. It keeps a message table
// (content, components, edits), interaction callbacks and webhook edits for the test to read,
// and answers 429 on demand as Discord does; unknown routes are logged in `unknown`.
//
// It plays an app with no privileged intent approved, as a new bot is: an IDENTIFY that asks
// for one (GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT) is closed with 4014 "Disallowed
// intent(s)", and without MESSAGE_CONTENT a server-channel message that does not mention the
// bot arrives with empty content (DMs and mentions keep theirs, as on Discord).
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';

export type DcUser = { id: string; username: string; global_name?: string; discriminator?: string; avatar?: null; bot?: boolean };
export type DcButton = { type: 2; style: number; label: string; custom_id?: string; url?: string };
export type DcMessage = {
  id: string;
  channel_id: string;
  author: DcUser;
  content: string;
  components: { type: 1; components: DcButton[] }[];
  history: string[];
  edits: number;
  /** Sent as an interaction answer (webhook), not in a channel. */
  webhook?: { token: string; ephemeral: boolean };
};
export type DcCall = { method: string; path: string; body: unknown; at: number; status: number };

/** GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT. */
export const PRIVILEGED_INTENTS = (1 << 1) | (1 << 8) | (1 << 15);
export const MESSAGE_CONTENT = 1 << 15;

let snowflake = 100_000_000_000_000_000n;
const nextId = () => String(++snowflake);

export async function startDiscordApi({ token }: { token: string }) {
  const bot: DcUser = {
    id: '900000000000000001',
    username: 'presence',
    discriminator: '0',
    global_name: 'Presence',
    avatar: null,
    bot: true,
  };
  const appId = bot.id;
  const calls: DcCall[] = [];
  const unknown: string[] = [];
  const messages = new Map<string, DcMessage>();
  const dmChannels = new Map<string, string>(); // user id → channel id
  const callbacks: { id: string; token: string; type: number; data?: Record<string, unknown> }[] = [];
  const commands: Record<string, unknown>[] = [];
  const sockets = new Set<Socket>();
  const clients = new Set<WebSocket>();
  let seq = 0;
  let identified: Record<string, unknown> | null = null;
  const failures: { method: string; path: RegExp; retryAfter: number }[] = [];

  const wireMessage = (m: DcMessage) => ({
    id: m.id,
    channel_id: m.channel_id,
    author: m.author,
    content: m.content,
    components: m.components,
    timestamp: new Date().toISOString(),
    edited_timestamp: m.edits ? new Date().toISOString() : null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    flags: m.webhook?.ephemeral ? 64 : 0,
  });

  function dmOf(userId: string): string {
    let id = dmChannels.get(userId);
    if (!id) {
      id = nextId();
      dmChannels.set(userId, id);
    }
    return id;
  }

  function create(channelId: string, author: DcUser, body: Record<string, unknown>, webhook?: DcMessage['webhook']): DcMessage {
    const m: DcMessage = {
      id: nextId(),
      channel_id: channelId,
      author,
      content: String(body.content ?? ''),
      components: (body.components as DcMessage['components']) ?? [],
      history: [String(body.content ?? '')],
      edits: 0,
      webhook,
    };
    messages.set(m.id, m);
    return m;
  }

  function update(m: DcMessage, body: Record<string, unknown>) {
    if (typeof body.content === 'string') {
      m.content = body.content;
      m.history.push(body.content);
    }
    if (Array.isArray(body.components)) m.components = body.components as DcMessage['components'];
    m.edits++;
  }

  type Route = [
    method: string,
    pattern: RegExp,
    handler: (m: RegExpExecArray, body: Record<string, unknown>, url: URL) => [number, unknown],
  ];
  const tooLong = (body: Record<string, unknown>) => typeof body.content === 'string' && body.content.length > 2000;
  const invalid: [number, unknown] = [400, { message: 'Invalid Form Body', code: 50035 }];
  const routes: Route[] = [
    ['GET', /^\/gateway\/bot$/, () => [200, gatewayBot()]],
    ['GET', /^\/gateway$/, () => [200, { url: wsUrl }]],
    ['GET', /^\/users\/@me$/, () => [200, bot]],
    [
      'PUT',
      /^\/applications\/(\d+)\/commands$/,
      (_m, body) => {
        const list = (body as unknown as Record<string, unknown>[]).map((c) => ({
          ...c,
          id: nextId(),
          application_id: appId,
          version: '1',
        }));
        commands.splice(0, commands.length, ...list);
        return [200, list];
      },
    ],
    [
      'POST',
      /^\/users\/@me\/channels$/,
      (_m, body) => [
        200,
        { id: dmOf(String(body.recipient_id)), type: 1, recipients: [{ id: String(body.recipient_id), username: 'someone' }] },
      ],
    ],
    [
      'POST',
      /^\/channels\/(\d+)\/messages$/,
      (m, body) => (tooLong(body) ? invalid : [200, wireMessage(create(m[1] as string, bot, body))]),
    ],
    [
      'PATCH',
      /^\/channels\/(\d+)\/messages\/(\d+)$/,
      (m, body) => {
        const msg = messages.get(m[2] as string);
        if (!msg || msg.channel_id !== m[1]) return [404, { message: 'Unknown Message', code: 10008 }];
        if (tooLong(body)) return invalid;
        update(msg, body);
        return [200, wireMessage(msg)];
      },
    ],
    [
      'POST',
      /^\/interactions\/(\d+)\/([^/]+)\/callback$/,
      (m, body, url) => {
        const cb = { id: m[1] as string, token: m[2] as string, type: Number(body.type), data: body.data as Record<string, unknown> };
        if (callbacks.some((c) => c.id === cb.id)) return [400, { message: 'Interaction has already been acknowledged.', code: 40060 }];
        callbacks.push(cb);
        const ephemeral = (Number(cb.data?.flags ?? 0) & 64) !== 0;
        // 4 = reply now, 5 = deferred reply: both make the @original message.
        if (cb.type === 4 || cb.type === 5)
          create(`webhook:${cb.token}`, bot, cb.type === 4 ? (cb.data ?? {}) : { content: '' }, { token: cb.token, ephemeral });
        if (url.searchParams.get('with_response') === 'true') return [200, { interaction: { id: cb.id, type: 2 } }];
        return [204, null];
      },
    ],
    [
      'PATCH',
      /^\/webhooks\/(\d+)\/([^/]+)\/messages\/@original$/,
      (m, body) => {
        const original = [...messages.values()].find((x) => x.webhook?.token === m[2]);
        if (!original) return [404, { message: 'Unknown Webhook', code: 10015 }];
        if (tooLong(body)) return invalid;
        update(original, body);
        return [200, wireMessage(original)];
      },
    ],
    [
      'POST',
      /^\/webhooks\/(\d+)\/([^/]+)$/,
      (m, body) =>
        tooLong(body)
          ? invalid
          : [
              200,
              wireMessage(
                create(`webhook:${m[2]}`, bot, body, { token: `${m[2]}:followup`, ephemeral: (Number(body.flags ?? 0) & 64) !== 0 }),
              ),
            ],
    ],
  ];

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? JSON.parse(text) : {};
      const path = decodeURIComponent(url.pathname).replace(/^\/api\/v10/, '');
      const call: DcCall = { method: req.method ?? 'GET', path, body, at: Date.now(), status: 200 };
      calls.push(call);
      const send = (status: number, payload: unknown) => {
        call.status = status;
        if (status === 204) {
          res.writeHead(204);
          res.end();
          return;
        }
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      };
      const isWebhook = /^\/(interactions|webhooks)\//.test(path);
      if (!isWebhook && req.headers.authorization !== `Bot ${token}`) return send(401, { message: '401: Unauthorized', code: 0 });
      const f = failures.findIndex((x) => x.method === req.method && x.path.test(path));
      if (f !== -1) {
        // Discord's shape: retry_after (seconds, may be fractional) in the body, and the headers.
        const { retryAfter } = failures.splice(f, 1)[0] as { retryAfter: number };
        call.status = 429;
        res.writeHead(429, {
          'content-type': 'application/json',
          'retry-after': String(Math.ceil(retryAfter)),
          'x-ratelimit-limit': '5',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset-after': String(retryAfter),
          'x-ratelimit-bucket': 'loopback-bucket',
          'x-ratelimit-scope': 'user',
        });
        res.end(JSON.stringify({ message: 'You are being rate limited.', retry_after: retryAfter, global: false }));
        return;
      }
      for (const [method, pattern, handler] of routes) {
        const m = pattern.exec(path);
        if (m && method === req.method) {
          const [status, payload] = handler(m, body, url);
          return send(status, payload);
        }
      }
      unknown.push(`${req.method} ${path}`);
      send(404, { message: '404: Not Found', code: 0 });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });

  const wss = new WebSocketServer({ server });
  const identifies: [number, number][] = [];
  const frame = (ws: WebSocket, payload: Record<string, unknown>) => ws.send(JSON.stringify({ s: null, t: null, ...payload }));
  /** Each connection's shard ([id, count] from its IDENTIFY; one shard when it names none). */
  const shardOf = new Map<WebSocket, [number, number]>();
  wss.on('connection', (ws) => {
    clients.add(ws);
    ws.on('close', () => {
      clients.delete(ws);
      shardOf.delete(ws);
    });
    frame(ws, { op: 10, d: { heartbeat_interval: 45_000 } });
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> };
      if (msg.op === 1) frame(ws, { op: 11 });
      else if (msg.op === 2) {
        identified = msg.d;
        const shard = (Array.isArray(msg.d.shard) ? msg.d.shard : [0, 1]) as [number, number];
        shardOf.set(ws, shard);
        identifies.push(shard);
        if ((Number(msg.d.intents) & PRIVILEGED_INTENTS) !== 0) {
          ws.close(4014, 'Disallowed intent(s).');
          return;
        }
        ws.send(
          JSON.stringify({
            op: 0,
            t: 'READY',
            s: ++seq,
            d: {
              v: 10,
              user: bot,
              guilds: [],
              session_id: 'loopback-session',
              resume_gateway_url: wsUrl,
              shard: shardOf.get(ws),
              application: { id: appId, flags: 0 },
            },
          }),
        );
      }
    });
  });

  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const wsUrl = `ws://127.0.0.1:${port}`;
  const gatewayBot = () => ({
    url: wsUrl,
    shards: 1,
    session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 },
  });

  /** As Discord routes: a server's events to shard (guild_id >> 22) % count, DMs to shard 0. */
  function dispatch(t: string, d: unknown) {
    const payload = JSON.stringify({ op: 0, t, s: ++seq, d });
    const { id: ownId, guild_id } = d as { id?: string; guild_id?: string };
    const guild = t === 'GUILD_CREATE' ? ownId : guild_id;
    for (const ws of clients) {
      const [id, count] = shardOf.get(ws) ?? [0, 1];
      const target = guild === undefined ? 0 : Number((BigInt(guild) >> 22n) % BigInt(count));
      if (target === id) ws.send(payload);
    }
  }

  const member = (user: DcUser) => ({ ...user, discriminator: user.discriminator ?? '0', avatar: null });
  const interactionBase = (user: DcUser, channelId: string) => ({
    id: nextId(),
    application_id: appId,
    token: `itoken-${nextId()}`,
    version: 1,
    channel_id: channelId,
    channel: { id: channelId, type: 1 },
    user: member(user),
    locale: 'en-US',
    app_permissions: '0',
    entitlements: [],
    authorizing_integration_owners: { '1': user.id },
    context: 1,
  });

  return {
    url: `http://127.0.0.1:${port}`,
    /** What discord.js takes as `rest.api`. */
    apiRoot: `http://127.0.0.1:${port}/api`,
    bot,
    calls,
    unknown,
    commands,
    get identified() {
      return identified;
    },
    /** The [shard id, shard count] of every IDENTIFY, in order. */
    identifies,
    dmOf,
    /** A user writes to the bot in a DM; returns the message id. */
    dm(user: DcUser, content: string) {
      const channelId = dmOf(user.id);
      const m = create(channelId, member(user), { content });
      dispatch('MESSAGE_CREATE', { ...wireMessage(m), channel_type: 1 });
      return m.id;
    },
    /** The bot joins a server with one text channel (what discord.js needs before guild messages). */
    joinGuild(guildId: string, channelId: string) {
      dispatch('GUILD_CREATE', {
        id: guildId,
        name: 'Traders',
        icon: null,
        owner_id: '300000000000000009',
        unavailable: false,
        member_count: 2,
        large: false,
        joined_at: new Date().toISOString(),
        features: [],
        roles: [
          { id: guildId, name: '@everyone', permissions: '1024', position: 0, color: 0, hoist: false, managed: false, mentionable: false },
        ],
        emojis: [],
        stickers: [],
        members: [],
        channels: [{ id: channelId, type: 0, name: 'general', guild_id: guildId, position: 0, permission_overwrites: [] }],
        threads: [],
        presences: [],
        voice_states: [],
        stage_instances: [],
        guild_scheduled_events: [],
        soundboard_sounds: [],
      });
    },
    /** A user writes in a server channel, mentioning the bot or not; returns the message id. */
    post(user: DcUser, guildId: string, channelId: string, content: string, mentionBot: boolean) {
      const m = create(channelId, member(user), { content });
      const seesContent = mentionBot || (Number(identified?.intents ?? 0) & MESSAGE_CONTENT) !== 0;
      dispatch('MESSAGE_CREATE', {
        ...wireMessage(m),
        ...(seesContent ? {} : { content: '' }),
        guild_id: guildId,
        member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 },
        mentions: mentionBot ? [bot] : [],
      });
      return m.id;
    },
    /** A slash command; returns the interaction token (its answer is the @original message). */
    slash(user: DcUser, name: string, options: { name: string; type: number; value: string }[] = [], channelId = dmOf(user.id)) {
      const base = interactionBase(user, channelId);
      dispatch('INTERACTION_CREATE', { ...base, type: 2, data: { id: nextId(), name, type: 1, options } });
      return base;
    },
    /** A user presses a button under one of the bot's messages; returns the interaction. */
    press(user: DcUser, message: DcMessage, customId: string) {
      const base = interactionBase(user, message.channel_id);
      dispatch('INTERACTION_CREATE', { ...base, type: 3, message: wireMessage(message), data: { custom_id: customId, component_type: 2 } });
      return base;
    },
    /** The bot's channel messages in a channel, oldest first. */
    botMessages(channelId: string) {
      return [...messages.values()].filter((m) => m.author.id === bot.id && m.channel_id === channelId);
    },
    /** The answer to an interaction: its @original message (deferred, then edited). */
    original: (interactionToken: string) => [...messages.values()].find((m) => m.webhook?.token === interactionToken),
    callbackOf: (interactionId: string) => callbacks.find((c) => c.id === interactionId),
    /** The next `method` call whose path (without /api/v10) matches answers 429 with retry_after. */
    failNext(method: string, path: RegExp, retryAfter: number) {
      failures.push({ method, path, retryAfter });
    },
    async close() {
      for (const ws of clients) ws.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export type DiscordApi = Awaited<ReturnType<typeof startDiscordApi>>;
