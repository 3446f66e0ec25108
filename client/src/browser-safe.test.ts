// The SDK runs in a browser extension: outside src/cli nothing may import a Node built-in
// or the core root (which pulls Node in). Only @presence/core/schemas, zod and our own files,
// and the schemas entry itself must stay pure (it now reaches into core/src/chain).
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.dirname(fileURLToPath(import.meta.url));

function sdkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'cli' ? [] : sdkFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

it('SDK files import only web-safe modules', () => {
  const files = sdkFiles(root);
  expect(files.length).toBeGreaterThan(10);
  const bad: string[] = [];
  for (const f of files) {
    for (const m of readFileSync(f, 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
      const spec = m[1] as string;
      const ok = spec.startsWith('.') || spec === 'zod' || spec === '@presence/core/schemas';
      if (!ok) bad.push(`${path.relative(root, f)}: ${spec}`);
    }
    if (/\b(process|Buffer|require)\b[.(]/.test(readFileSync(f, 'utf8'))) bad.push(`${path.relative(root, f)}: uses a Node global`);
  }
  expect(bad).toEqual([]);
});

it('@presence/core/schemas, which the SDK imports, reaches only zod and its own files', () => {
  const entry = path.join(path.dirname(createRequire(import.meta.url).resolve('@presence/core/package.json')), 'src/schemas/index.ts');
  const seen = new Set<string>();
  const bad: string[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)) {
      const spec = m[1] as string;
      if (spec === 'zod') continue;
      if (!spec.startsWith('.')) bad.push(`${path.relative(entry, file)}: ${spec}`);
      else visit(path.resolve(path.dirname(file), spec.endsWith('.ts') ? spec : `${spec}.ts`));
    }
  };
  visit(entry);
  expect(seen.size).toBeGreaterThan(5);
  expect(bad).toEqual([]);
});
