// Every problem type in core's catalogue has an exit code, and cli/README.md documents
// each one in the row of that code: the table is checked against the one mapping.
import { readFileSync } from 'node:fs';
import { PresenceApiError } from '@presence/client';
import { problemCatalogue } from '@presence/protocol';
import { describe, expect, it } from 'vitest';
import { exitCodeFor } from './exit-code-for';
import { exitCodeClasses } from './exit-codes';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const apiError = (type: string, status: number) => new PresenceApiError({ type, title: type, status, detail: 'x' });

/** The rows of the README's exit code table: code → { class, from }. */
function documented(): Map<number, { what: string; from: string }> {
  const section = readme.slice(readme.indexOf('## Exit codes'));
  const rows = new Map<number, { what: string; from: string }>();
  for (const m of section.matchAll(/^\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|(.*)\|\s*$/gm)) {
    rows.set(Number(m[1]), { what: m[2] as string, from: m[3] as string });
  }
  return rows;
}

describe('exit codes', () => {
  it('the README table has one row per code, with the class --help prints', () => {
    const rows = documented();
    expect([...rows.keys()]).toEqual(Object.keys(exitCodeClasses).map(Number));
    for (const [code, row] of rows) expect(row.what).toBe(exitCodeClasses[code as keyof typeof exitCodeClasses]);
  });

  it('every catalogue type maps to a code whose README row names it, and no row names a type of another code', () => {
    const rows = documented();
    const types = Object.entries(problemCatalogue);
    expect(types.length).toBeGreaterThan(20);
    for (const [type, { status }] of types) {
      const code = exitCodeFor(apiError(type, status));
      expect({ type, row: rows.get(code)?.from.includes(`\`${type}\``) }).toEqual({ type, row: true });
    }
    for (const [code, row] of rows) {
      for (const [, name] of row.from.matchAll(/`(\w+)`/g)) {
        const entry = problemCatalogue[name as keyof typeof problemCatalogue];
        if (entry) expect({ name, code: exitCodeFor(apiError(name as string, entry.status)) }).toEqual({ name, code });
      }
    }
  });

  it('intent_unresolved is usage or invalid input (2), conflict is refused (5)', () => {
    expect(exitCodeFor(apiError('intent_unresolved', 422))).toBe(2);
    expect(exitCodeFor(apiError('conflict', 409))).toBe(5);
  });

  it('a type newer than this CLI gets its class by status', () => {
    expect([401, 403, 404, 409, 418, 422, 429, 500, 503].map((status) => exitCodeFor(apiError('brand_new', status)))).toEqual([
      3, 4, 7, 5, 2, 2, 6, 6, 6,
    ]);
  });
});
