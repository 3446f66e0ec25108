// The package's shape, checked so it does not drift: imports between its folders go one way
// (the app → routes → http, never back), no route imports the app, and no source file grows
// past 400 lines (one concept per file).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = path.dirname(fileURLToPath(import.meta.url));
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Folder → the other folders of this package it imports from (relative specifiers only). */
function folderEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = path.relative(SRC, path.dirname(file)) || '.';
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)[^'"]*?from\s+'(\.{1,2}\/[^']+)'|^import\s+'(\.{1,2}\/[^']+)'/gm)) {
      const spec = (m[1] ?? m[2]) as string;
      const to = path.relative(SRC, path.dirname(path.resolve(path.dirname(file), spec))) || '.';
      if (to !== from) {
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)?.add(to);
      }
    }
  }
  return edges;
}

describe('server package layout', () => {
  it('has no import circle between its folders', () => {
    const edges = folderEdges();
    const reaches = (a: string, b: string, seen = new Set<string>()): boolean => {
      if (a === b) return true;
      if (seen.has(a)) return false;
      seen.add(a);
      return [...(edges.get(a) ?? [])].some((n) => reaches(n, b, seen));
    };
    const circles = [...edges].flatMap(([from, tos]) => [...tos].filter((to) => reaches(to, from)).map((to) => `${from} ⇄ ${to}`));
    expect(circles).toEqual([]);
    // The direction itself: the app composes routes and http; routes use http; http uses neither.
    expect([...(edges.get('http') ?? [])]).toEqual([]);
    expect([...(edges.get('routes') ?? [])]).toEqual(['http']);
  });

  it(`keeps every source file under ${MAX_LINES} lines`, () => {
    const long = sourceFiles(SRC)
      .map((f) => ({ file: path.relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
