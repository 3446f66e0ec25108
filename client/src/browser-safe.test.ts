// The SDK runs in a browser extension and is installed by consumers who want only the
// client: nothing may import a Node built-in or @presence/core (which pulls
// Node, viem, anvil and the AI SDK in). Only @presence/protocol (zod only, which checks its
// own imports in protocol/src/protocol.test.ts), zod and our own files.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import pkg from '../package.json' with { type: 'json' };

const root = path.dirname(fileURLToPath(import.meta.url));

function sdkFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sdkFiles(p);
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
      const ok = spec.startsWith('.') || spec === 'zod' || spec === '@presence/protocol';
      if (!ok) bad.push(`${path.relative(root, f)}: ${spec}`);
    }
    if (/\b(process|Buffer|require)\b[.(]/.test(readFileSync(f, 'utf8'))) bad.push(`${path.relative(root, f)}: uses a Node global`);
  }
  expect(bad).toEqual([]);
});

it('installing the client installs the protocol and zod, nothing else (the CLI is @presence/cli)', () => {
  expect(Object.keys(pkg.dependencies).sort()).toEqual(['@presence/protocol', 'zod']);
});
