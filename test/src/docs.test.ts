// The documentation against the code, so neither drifts silently: docs/api.md has a section
// for every endpoint of the OpenAPI document the server serves (and none for an endpoint it
// lacks); no Markdown file in the repository links outside it, to a file that is not there or
// to a heading that is not there — a clone must stand alone; every environment variable the
// code reads is in docs/configuration.md's tables; and the README stays a front page.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/use-test-server';
import { call } from './harness';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const API_DOC = path.join(ROOT, 'docs/api.md');
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
/** Folders that are installed, generated or kept data, not the repository's own text. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.turbo', 'build', 'dist', '.plasmo', 'test-artifacts']);
/** Data directories (`.presence`, `.presence-1`, `.presence-bots`, …), git-ignored as `.presence*\/`. */
const isDataDir = (name: string) => name.startsWith('.presence');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) || isDataDir(e.name) ? [] : markdownFiles(path.join(dir, e.name));
    return e.name.endsWith('.md') ? [path.join(dir, e.name)] : [];
  });
}

/** The text outside fenced code blocks, line by line. */
const proseLines = (text: string) => {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    return !fenced && !/^\s*```/.test(line);
  });
};

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

const anchorsOf = (file: string) =>
  new Set(
    proseLines(readFileSync(file, 'utf8'))
      .map((l) => /^#{1,6}\s+(.*)$/.exec(l)?.[1])
      .filter((h): h is string => h !== undefined)
      .map(slug),
  );

/** Every link target: inline `[text](target)`, reference `[x]: target` and `href="target"`. */
function linkTargets(text: string): string[] {
  const prose = proseLines(text).join('\n');
  return [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] as string),
    ...[...prose.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] as string),
    ...[...prose.matchAll(/href="([^"]+)"/g)].map((m) => m[1] as string),
  ];
}

/** What is wrong with one link of `file`, or null when it resolves inside the repository. */
function problemWith(file: string, target: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto:: not a file of ours
  const [rel = '', fragment] = target.split('#');
  const resolved = rel === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rel));
  if (path.relative(ROOT, resolved).startsWith('..') || path.isAbsolute(rel)) return 'points outside the repository';
  if (!existsSync(resolved)) return 'points to a file that does not exist';
  if (fragment && resolved.endsWith('.md') && !anchorsOf(resolved).has(fragment)) return `has no heading #${fragment}`;
  return null;
}

describe('docs/api.md and the OpenAPI document', () => {
  const s = useTestServer();

  it('has a "### METHOD /path" section for every operation the server serves, and none for one it lacks', async () => {
    const answer = await call(s.url, 'GET', '/v1/openapi.json');
    expect(answer.status).toBe(200);
    const paths = answer.json.paths as Record<string, Record<string, unknown>>;
    const served = Object.entries(paths).flatMap(([p, operations]) =>
      Object.keys(operations)
        .filter((m) => HTTP_METHODS.has(m))
        .map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(served.length).toBeGreaterThan(20);
    const documented = [...readFileSync(API_DOC, 'utf8').matchAll(/^### ([A-Z]+) (\/\S*)\s*$/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect({ undocumented: served.filter((op) => !documented.includes(op)) }).toEqual({ undocumented: [] });
    expect({ notServed: documented.filter((op) => !served.includes(op)) }).toEqual({ notServed: [] });
  });

  it('agrees with it on each operation’s answers and problems, and names every header it declares', async () => {
    const document = (await call(s.url, 'GET', '/v1/openapi.json')).json as unknown as OpenapiDocument;
    const text = readFileSync(API_DOC, 'utf8');
    const sections = new Map([...text.matchAll(/^### ([A-Z]+ \/\S*)\s*$([\s\S]*?)(?=^##)/gm)].map((m) => [m[1] as string, m[2] as string]));
    const disagreements: string[] = [];
    for (const [p, operations] of Object.entries(document.paths))
      for (const [method, op] of Object.entries(operations)) {
        const at = `${method.toUpperCase()} ${p}`;
        const section = sections.get(at) ?? '';
        const answers = problemTypesByStatus(op);
        for (const [status, types] of answers) {
          // A success is named by its status; a problem of this operation's own by its type (the
          // ones every endpoint of a kind answers are listed once, above the endpoints).
          if (types.length === 0 && !section.includes(status)) disagreements.push(`${at}: ${status} is not in its section`);
          for (const type of types)
            if (!GENERAL_PROBLEMS.has(type) && !section.includes(`\`${type}\``))
              disagreements.push(`${at}: ${status} ${type} is not in its section`);
        }
        // And the other way: a "status `type`" its section names is one the document lists.
        for (const [, status, type] of section.matchAll(/\b([2-5][0-9]{2}) `([a-z_]+)`/g))
          if (!answers.get(status as string)?.includes(type as string))
            disagreements.push(`${at}: its section says ${status} ${type}; the document does not`);
      }
    const headers = [...Object.keys(document.components.parameters ?? {}), ...Object.keys(document.components.headers ?? {})];
    for (const name of new Set(headers)) if (!text.includes(name)) disagreements.push(`header ${name} is not in docs/api.md`);
    expect(disagreements).toEqual([]);
  });
});

type OpenapiOperation = {
  responses: Record<string, { content?: Record<string, { schema: { allOf?: { properties?: { type?: { enum?: string[] } } }[] } }> }>;
};
type OpenapiDocument = {
  paths: Record<string, Record<string, OpenapiOperation>>;
  components: { parameters?: Record<string, unknown>; headers?: Record<string, unknown> };
};
/** The problems every endpoint of its kind answers: docs/api.md lists them once, above the endpoints. */
const GENERAL_PROBLEMS = new Set([
  'invalid_request',
  'auth',
  'scope',
  'rate_limited',
  'payload_too_large',
  'uri_too_long',
  'unsupported_media_type',
  'headers_too_large',
  'request_timeout',
  'internal',
  'store_unavailable',
  'idempotency_mismatch',
  'idempotency_in_progress',
  'chain_unavailable',
]);
/** Each answer's status and, for a problem, the types the document narrows it to. */
const problemTypesByStatus = (op: OpenapiOperation) =>
  new Map(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      r.content?.['application/problem+json']?.schema.allOf?.[1]?.properties?.type?.enum ?? [],
    ]),
  );

describe('Markdown links', () => {
  const files = markdownFiles(ROOT);

  it('covers the README of the repository and of each package, and the API reference', () => {
    const names = files.map((f) => path.relative(ROOT, f));
    expect(names).toEqual(
      expect.arrayContaining(['README.md', 'docs/api.md', 'client/README.md', 'bots/README.md', 'extension/README.md']),
    );
  });

  it('every link stays inside the repository and reaches a file (and heading) that exists', () => {
    const broken = files.flatMap((file) =>
      linkTargets(readFileSync(file, 'utf8')).flatMap((target) => {
        const problem = problemWith(file, target);
        return problem ? [`${path.relative(ROOT, file)}: ${target} ${problem}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('no relative path written in the text (a code span, say) climbs out of the repository', () => {
    const outside = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/(?:\.\.\/)+[\w.-][\w./-]*/g)]
        .map((m) => m[0])
        .filter((p) => path.relative(ROOT, path.resolve(path.dirname(file), p)).startsWith('..'))
        .map((p) => `${path.relative(ROOT, file)}: ${p}`),
    );
    expect(outside).toEqual([]);
  });
});

/** The packages' own code and the repository's scripts: what ships or runs for an operator. */
const CODE_DIRS = ['protocol', 'core', 'devnet', 'server', 'client', 'cli', 'bots', 'extension', 'scripts'];
/** Variables of the process itself that the code reads but nobody configures for Presence. */
const NOT_OURS = new Set(['PATH', 'HOME', 'INIT_CWD']);

function codeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) || e.name === 'test' ? [] : codeFiles(full);
    return /\.(ts|tsx|mjs|js)$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [full] : [];
  });
}

/**
 * Every variable the code reads: `env.NAME`, `env['NAME']`, a name handed to a reader with the
 * environment (`httpUrl(env, 'PRESENCE_URL', …)`), and the keys of the server's config schema.
 */
function variablesRead(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of CODE_DIRS.flatMap((d) => codeFiles(path.join(ROOT, d)))) {
    const text = readFileSync(file, 'utf8');
    const names = [
      ...text.matchAll(/\benv(?:\.|\[\s*['"])([A-Z][A-Z0-9_]*)\b/g),
      ...text.matchAll(/\(\s*env\s*,\s*['"]([A-Z][A-Z0-9_]*)['"]/g),
      ...(file.endsWith(path.join('server', 'src', 'config.ts')) ? text.matchAll(/^\s+(PRESENCE_[A-Z0-9_]+):/gm) : []),
    ].map((m) => m[1] as string);
    for (const name of names) if (!NOT_OURS.has(name) && !found.has(name)) found.set(name, path.relative(ROOT, file));
  }
  return found;
}

describe('docs/configuration.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
  /** The first cell of every table row: `` `NAME` `` or `` `A`, `B` ``. */
  const documented = new Set(
    [...doc.matchAll(/^\|\s*([^|]+?)\s*\|/gm)].flatMap((m) => [...(m[1] as string).matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((n) => n[1])),
  );

  it('has a row for every environment variable the code reads', () => {
    const read = variablesRead();
    // The reader found the variables of each program, so an empty scan cannot pass.
    for (const name of [
      'PRESENCE_PORT',
      'PRESENCE_METRICS_TOKEN',
      'TELEGRAM_BOT_TOKEN',
      'DISCORD_API_ROOT',
      'PRESENCE_TOKEN',
      'XDG_CONFIG_HOME',
    ]) {
      expect(read.has(name), name).toBe(true);
    }
    const missing = [...read].filter(([name]) => !documented.has(name)).map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });
});

describe('README.md', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('stays a front page: at most 15 KB', () => {
    expect(Buffer.byteLength(readme)).toBeLessThanOrEqual(15 * 1024);
  });

  it('maps every document in docs/', () => {
    const docs = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
    const linked = new Set(linkTargets(readme).map((t) => t.split('#')[0]));
    expect(docs.filter((f) => !linked.has(`docs/${f}`))).toEqual([]);
  });

  it('names no bullet twice within a section of any document (a bold title such as **Limits** said twice)', () => {
    const twice = files().flatMap((file) => {
      const seen = new Set<string>();
      return proseLines(readFileSync(file, 'utf8')).flatMap((line) => {
        if (/^#{1,6}\s/.test(line)) seen.clear();
        const title = /^\s*- \*\*([^*]+?)[.:]?\*\*/.exec(line)?.[1];
        if (title === undefined) return [];
        if (seen.has(title)) return [`${path.relative(ROOT, file)}: ${title}`];
        seen.add(title);
        return [];
      });
    });
    expect(twice).toEqual([]);
  });
});

function files(): string[] {
  return markdownFiles(ROOT);
}
