// Server configuration from the environment, parsed by one zod schema. Every value has a
// working default; a bad value stops the start with one line naming the variable (and, unless
// the variable holds a secret, its value). An empty value is a bad value, whatever the variable:
// read as unset it could quietly change what the server is (PRESENCE_DATABASE_URL= the embedded
// store instead of PostgreSQL, PRESENCE_METRICS_TOKEN= an open /metrics). Relative paths are resolved against the directory
// the command was typed in: `npm start` and `npx presence-server` may run in another one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { accountLimits, chain, parseRateLimit } from '@presence/core';
import { z } from 'zod';
import { readOpenFileLimit, resolveConnectionLimits, STREAM_HEADROOM } from './connection-limits';
import { parseTrustedProxies } from './http/trusted-proxies';

const url = z.url({ protocol: /^https?$/ });
const rateLimit = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((s, ctx) => {
      const r = parseRateLimit(s);
      if (!r) {
        ctx.addIssue({ code: 'custom', message: `use <count>/<window><unit>, e.g. ${fallback}` });
        return z.NEVER;
      }
      return r;
    });
const count = z
  .string()
  .regex(/^\d{1,7}$/, 'a whole number, digits only')
  .transform(Number)
  .pipe(z.number().min(1, 'at least 1'));

const UNIT_MS = { ms: 1, s: 1000, m: 60_000 } as const;
/** A duration such as 500ms, 30s or 2m, as milliseconds (1 ms to 1 h). */
const duration = z
  .string()
  .regex(/^\d{1,7}(ms|s|m)$/, 'a duration such as 30s, 500ms or 2m')
  .transform((s) => {
    const [, n, unit] = /^(\d+)(ms|s|m)$/.exec(s) as unknown as [string, string, keyof typeof UNIT_MS];
    return Number(n) * UNIT_MS[unit];
  })
  .pipe(z.number().min(1, 'at least 1ms').max(3_600_000, 'at most 60m'));

// An empty value is refused as every variable's is (`PRESENCE_X=` is a placeholder left unfilled or
// a substitution that came out empty); unset, the list is empty.
const trustedProxies = z
  .string()
  .min(1, 'addresses or CIDRs, comma-separated (unset: none)')
  .default('')
  .transform((s, ctx) => {
    try {
      return parseTrustedProxies(s);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
      return z.NEVER;
    }
  });

/** A browser origin as browsers send it: scheme, host, optional port; no path, no trailing slash. */
const ORIGIN = /^(https?:\/\/[a-z0-9.-]+(:\d{1,5})?|https?:\/\/\[[0-9a-f:.]+\](:\d{1,5})?|(chrome|moz)-extension:\/\/[a-z0-9-]+)$/;
const origins = z
  .string()
  .min(1, 'origins, comma-separated (unset: none)')
  .default('')
  .transform((s, ctx) => {
    const list = s
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== '');
    const bad = list.find((o) => !ORIGIN.test(o));
    if (bad !== undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `${JSON.stringify(bad)} is not an origin: comma-separated scheme://host[:port], lower case, no path (e.g. https://app.example.com)`,
      });
      return z.NEVER;
    }
    return list;
  });

export const ConfigSchema = z.object({
  PRESENCE_HOST: z
    .union([z.ipv4(), z.ipv6(), z.literal('localhost')], { error: 'an IP address (127.0.0.1, 0.0.0.0, ::) or localhost' })
    .default('127.0.0.1'),
  // Digits only: a coercing number would read '' as 0 (a random port) and '0x50' as 80.
  PRESENCE_PORT: z
    .string()
    .regex(/^\d{1,5}$/, 'a port number: digits only, 0-65535')
    .transform(Number)
    .pipe(z.number().max(65_535, 'a port number: digits only, 0-65535'))
    .default(8787),
  PRESENCE_DATA_DIR: z.string().min(1, 'a directory path (unset: ./.presence)').default('./.presence'),
  PRESENCE_CHAIN: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'a chain name such as devnet, base or mainnet')
    .default('devnet'),
  PRESENCE_RPC_URL: url.optional(),
  PRESENCE_TOKEN_LIST: z.string().min(1, 'a token list file path').optional(),
  PRESENCE_MASTER_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hex characters (32 bytes)')
    .optional(),
  // Set: the PostgreSQL store (several servers may share it); unset: the embedded store in
  // PRESENCE_DATA_DIR. A secret by its name: it usually carries a password.
  PRESENCE_DATABASE_URL: z
    .url({ protocol: /^postgres(ql)?$/, error: 'a URL such as postgres://user:password@host:5432/presence' })
    .optional(),
  // The server's one PostgreSQL pool (plus the LISTEN connection): leadership keeps one of
  // these connections, the cluster locks hold up to 4, requests share the rest.
  PRESENCE_DATABASE_POOL: count.pipe(z.number().min(3, 'at least 3 (leadership keeps one, the locks one, requests need one)')).default(10),
  // Names this server among the deployment's (health, logs, metrics); default host:pid.
  PRESENCE_SERVER_ID: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,64}$/, 'up to 64 letters, digits, ".", "_", ":" or "-"')
    .optional(),
  PRESENCE_RATE_LIMIT: rateLimit('120/60s'),
  PRESENCE_AUTH_FAIL_LIMIT: rateLimit('60/60s'),
  PRESENCE_MAX_STREAMS_PER_KEY: count.default(20),
  PRESENCE_MAX_STREAMS_PER_ACCOUNT: count.default(100),
  // What one account may keep (core's accountLimits); over a cap, creating one more is 409.
  PRESENCE_MAX_KEYS_PER_ACCOUNT: count.default(accountLimits.keys),
  PRESENCE_MAX_LINKS_PER_ACCOUNT: count.default(accountLimits.links),
  PRESENCE_MAX_STANDING_PER_ACCOUNT: count.default(accountLimits.standing),
  PRESENCE_MAX_MEMORY_PER_ACCOUNT: count.default(accountLimits.memory),
  PRESENCE_MAX_HELD_PER_ACCOUNT: count.default(accountLimits.held),
  // Development: webhooks may use http and reach private addresses (a receiver on this machine).
  PRESENCE_WEBHOOK_ALLOW_PRIVATE: z
    .enum(['0', '1'], { error: '1 (allow http and private addresses for webhooks) or 0' })
    .default('0')
    .transform((v) => v === '1'),
  // Resolved against the open-file limit in loadConfig (see connection-limits.ts).
  PRESENCE_MAX_STREAMS: count.optional(),
  PRESENCE_MAX_CONNECTIONS: count.optional(),
  // One address's share of the connections (trusted proxies are not counted); checked against PRESENCE_MAX_CONNECTIONS in loadConfig.
  PRESENCE_MAX_CONNECTIONS_PER_ADDRESS: count.default(100),
  // How long a request (headers and body) may take to arrive; past it, 408 and the connection closes.
  PRESENCE_REQUEST_TIMEOUT: duration.default(30_000),
  // Balancers whose X-Forwarded-For names the client (addresses and CIDRs); none: the header is ignored.
  PRESENCE_TRUSTED_PROXIES: trustedProxies,
  PRESENCE_LLM_BASE_URL: url.optional(),
  PRESENCE_LLM_API_KEY: z.string().min(1, 'the key of PRESENCE_LLM_BASE_URL (unset: none)').optional(),
  PRESENCE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // Unset: human-readable lines on a terminal, JSON lines otherwise (decided where stdout is known).
  PRESENCE_LOG_FORMAT: z.enum(['pretty', 'json']).optional(),
  // The origin browsers reach this deployment at: passkey pages' origin and RP ID (its host), and
  // the base of enroll and approve links. Unset: http://localhost:<the port listened on>.
  PRESENCE_PUBLIC_URL: url
    .refine((u) => URL.canParse(u) && /^https?:\/\/[^/?#]+\/?$/.test(u), 'an origin only: scheme://host[:port], no path')
    .refine(
      (u) => !URL.canParse(u) || !/^\d+\.\d+\.\d+\.\d+$|^\[/.test(new URL(u).hostname),
      'a host name: an IP address cannot be a passkey RP ID',
    )
    .optional(),
  // Browser origins that get CORS headers; none by default (no CORS at all).
  PRESENCE_CORS_ORIGINS: origins,
  // Set: GET /metrics needs `Authorization: Bearer <it>`; unset: /metrics is public.
  PRESENCE_METRICS_TOKEN: z
    .string()
    .regex(/^[\x21-\x7e]{16,256}$/, '16-256 printable ASCII characters without spaces (e.g. from `openssl rand -hex 24`)')
    .optional(),
});

export type Config = Omit<z.infer<typeof ConfigSchema>, 'PRESENCE_MAX_STREAMS' | 'PRESENCE_MAX_CONNECTIONS'> & {
  PRESENCE_MAX_STREAMS: number;
  PRESENCE_MAX_CONNECTIONS: number;
};

export class ConfigError extends Error {}

/** Variables whose values are credentials: a bad one is named, never echoed. */
// RPC and model URLs count too: providers put API keys in the path or the query. A cap "per
// key" (PRESENCE_MAX_STREAMS_PER_KEY) is a count, shown like every other.
export const isSecretVariable = (name: string) => /(_KEY|_TOKEN|_SECRET|_PASSWORD|_URL)$/.test(name) && !/_PER_KEY$/.test(name);

/**
 * Where the user typed the command. npm runs scripts in the package's directory (a workspace's,
 * under `npm run -w`) but keeps the caller's in INIT_CWD.
 */
export const invocationDir = (env: NodeJS.ProcessEnv) => env.INIT_CWD || process.cwd();

/** What is wrong with the token list file at `file` (one line), or null when it reads and parses. */
function tokenListProblem(file: string): string | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as { code?: string }).code;
    return code === 'ENOENT' ? `no such file (${file})` : `cannot read ${file} (${code ?? 'error'})`;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return `${file} is not valid JSON`;
  }
  const parsed = chain.TokenListSchema.safeParse(json);
  if (parsed.success) return null;
  const first = parsed.error.issues[0];
  return `${file} is not a token list: ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'}`.replace(/\s+/g, ' ');
}

/** PRESENCE_DATABASE_URL alone, for the commands that work on the database only (`migrate`). */
export function loadDatabaseUrl(env: NodeJS.ProcessEnv = process.env): string {
  const r = ConfigSchema.shape.PRESENCE_DATABASE_URL.safeParse(env.PRESENCE_DATABASE_URL);
  if (!r.success) throw new ConfigError(`invalid PRESENCE_DATABASE_URL (value not shown: it is a secret): ${r.error.issues[0]?.message}`);
  if (!r.data) throw new ConfigError('PRESENCE_DATABASE_URL is not set: this command works on a PostgreSQL database');
  return r.data;
}

/**
 * Parses the environment; throws ConfigError with one line naming the first bad variable.
 * `openFiles` is the process's open-file limit, which bounds connections (null: unknown).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, openFiles = readOpenFileLimit()): Config {
  const r = ConfigSchema.safeParse(env);
  if (!r.success) {
    const issue = r.error.issues[0];
    const name = String(issue?.path[0] ?? 'environment');
    const shown = isSecretVariable(name) ? ' (value not shown: it is a secret)' : `=${JSON.stringify(env[name] ?? '')}`;
    const empty = env[name] === '' ? ' (it is set but empty: unset it for the default)' : '';
    throw new ConfigError(`invalid ${name}${shown}: ${issue?.message ?? 'invalid value'}${empty}`);
  }
  if (r.data.PRESENCE_CHAIN !== 'devnet' && !r.data.PRESENCE_RPC_URL) {
    throw new ConfigError(
      `invalid PRESENCE_RPC_URL: required when PRESENCE_CHAIN=${r.data.PRESENCE_CHAIN} (only devnet runs its own chain)`,
    );
  }
  const from = invocationDir(env);
  const tokenList = r.data.PRESENCE_TOKEN_LIST ? path.resolve(from, r.data.PRESENCE_TOKEN_LIST) : undefined;
  if (r.data.PRESENCE_CHAIN !== 'devnet' && !tokenList) {
    throw new ConfigError(
      `invalid PRESENCE_TOKEN_LIST: required when PRESENCE_CHAIN=${r.data.PRESENCE_CHAIN} (only devnet deploys its own tokens)`,
    );
  }
  if (tokenList) {
    const wrong = tokenListProblem(tokenList);
    if (wrong) throw new ConfigError(`invalid PRESENCE_TOKEN_LIST=${JSON.stringify(env.PRESENCE_TOKEN_LIST)}: ${wrong}`);
  }
  if (r.data.PRESENCE_DATABASE_URL && !r.data.PRESENCE_MASTER_KEY) {
    // A generated key lives in one server's data directory: a second server on the same
    // database could not open the wallets and answers the first one sealed.
    throw new ConfigError(
      'invalid PRESENCE_MASTER_KEY: required with PRESENCE_DATABASE_URL (every server on one database needs the same key; 64 hex characters, e.g. from `openssl rand -hex 32`)',
    );
  }
  let limits: ReturnType<typeof resolveConnectionLimits>;
  try {
    limits = resolveConnectionLimits({ connections: r.data.PRESENCE_MAX_CONNECTIONS, streams: r.data.PRESENCE_MAX_STREAMS }, openFiles);
  } catch (e) {
    throw new ConfigError((e as Error).message);
  }
  if (r.data.PRESENCE_MAX_CONNECTIONS_PER_ADDRESS > limits.connections - STREAM_HEADROOM) {
    throw new ConfigError(
      `invalid PRESENCE_MAX_CONNECTIONS_PER_ADDRESS=${r.data.PRESENCE_MAX_CONNECTIONS_PER_ADDRESS}: it must leave ${STREAM_HEADROOM} of the ${limits.connections} connections (PRESENCE_MAX_CONNECTIONS) to other addresses`,
    );
  }
  return {
    ...r.data,
    PRESENCE_DATA_DIR: path.resolve(from, r.data.PRESENCE_DATA_DIR),
    PRESENCE_TOKEN_LIST: tokenList,
    PRESENCE_MAX_CONNECTIONS: limits.connections,
    PRESENCE_MAX_STREAMS: limits.streams,
  };
}
