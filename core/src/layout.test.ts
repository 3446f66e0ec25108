// The package's shape, checked so it does not drift: no import circle between its folders (a
// circle means no folder can be read, tested or moved without the others), the root entry
// loads no adapter (they are subpaths: lowdb, postgres, viem, ai, devnet), the files entry
// loads no package at all, and no source file (nor test support) grows past 400 lines.
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

type Import = { spec: string; typeOnly: boolean };

/** The specifiers a file imports or re-exports from; `import type` ones load nothing at run time. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of text.matchAll(/^(import|export)(\s+type\b)?[^'";]*?\sfrom\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
    found.push({ spec: (m[3] ?? m[4]) as string, typeOnly: Boolean(m[2]) });
  }
  return found;
}

function resolveRelative(file: string, spec: string): string {
  const base = path.resolve(path.dirname(file), spec);
  return base.endsWith('.ts') ? base : `${base}.ts`;
}

const folderOf = (file: string) => path.relative(SRC, path.dirname(file)) || '.';

/** Folder → the other folders of this package it imports from (type imports count: they tie folders too). */
function folderEdges(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    for (const { spec } of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const to = folderOf(resolveRelative(file, spec));
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)?.add(to);
    }
  }
  return edges;
}

/** One circle per strongly connected component of more than one folder (Tarjan), as `a → b → … → a`. */
function circles(edges: Map<string, Set<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v) as number);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) components.push(component);
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  // Name one concrete circle through each component: the shortest path back to its first folder.
  return components
    .map((component) => {
      const members = new Set(component);
      const start = [...members].sort()[0] as string;
      const back = new Map<string, string>();
      const queue = [start];
      for (let i = 0; i < queue.length; i++) {
        const v = queue[i] as string;
        for (const w of edges.get(v) ?? []) {
          if (!members.has(w)) continue;
          if (w === start) {
            const path = [start];
            for (let at: string | undefined = v; at !== undefined && at !== start; at = back.get(at)) path.unshift(at);
            return [start, ...path].join(' → ');
          }
          if (!back.has(w)) {
            back.set(w, v);
            queue.push(w);
          }
        }
      }
      return component.join(', ');
    })
    .map((circle, i) => `${circle} (all of: ${[...(components[i] ?? [])].sort().join(', ')})`);
}

/** The package specifiers a module loads at run time, following its relative imports through this package. */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const walk = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const { spec, typeOnly } of importsOf(file)) {
      if (typeOnly) continue;
      // A JSON module (a compiled contract's artifact) imports nothing.
      if (spec.startsWith('.') && !spec.endsWith('.json')) walk(resolveRelative(file, spec));
      else if (!spec.startsWith('node:')) packages.add(spec);
    }
  };
  walk(entry);
  return packages;
}

describe('core package layout', () => {
  it('has no import circle between its folders', () => {
    expect(circles(folderEdges())).toEqual([]);
  });

  it('finds a circle when there is one (the checker itself)', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a', 'd'])],
      ['d', new Set<string>()],
    ]);
    expect(circles(edges)).toEqual(['a → b → c → a (all of: a, b, c)']);
  });

  it('loads no adapter from the root entry', () => {
    const loaded = packagesLoadedBy(path.join(SRC, 'index.ts'));
    const packageOf = (spec: string) =>
      spec
        .split('/')
        .slice(0, spec.startsWith('@') ? 2 : 1)
        .join('/');
    const packages = new Set([...loaded].map(packageOf));
    for (const adapter of ['lowdb', 'postgres', 'ai', '@ai-sdk/openai-compatible', '@foundry-rs/anvil', 'undici']) {
      expect(packages, adapter).not.toContain(adapter);
    }
    // viem's narrow entries only (address checks, ABI encoding, key generation): its root entry
    // brings in every client and action, about twice the modules.
    expect([...loaded].filter((spec) => packageOf(spec) === 'viem').sort()).toEqual(['viem/accounts', 'viem/utils']);
  });

  it('loads nothing but Node from the files entry (the bots import it)', () => {
    expect([...packagesLoadedBy(path.join(SRC, 'store/files.ts'))]).toEqual([]);
  });

  it(`keeps every source file under ${MAX_LINES} lines, the test support in testing/ included`, () => {
    const long = [...sourceFiles(SRC), ...sourceFiles(path.join(SRC, '../testing'))]
      .map((f) => ({ file: path.relative(SRC, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_LINES);
    expect(long).toEqual([]);
  });
});
