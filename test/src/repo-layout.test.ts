// The repository's shape across packages: what a package ships (its src/) carries no test
// support. Test helpers live beside the tests (core/testing — published as
// @presence/core/testing —, server/test, this package's setup file), so nothing under a src/
// but a *.test.ts file imports the test runner.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name === 'dist' || e.name.startsWith('.')) return [];
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full) : /\.tsx?$/.test(e.name) ? [full] : [];
  });
}

describe('repository layout', () => {
  it('no file under any src/ imports vitest but *.test.ts files', () => {
    const packages = readdirSync(ROOT, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith('.'));
    const offenders = packages
      .flatMap((p) => {
        const src = path.join(ROOT, p.name, 'src');
        try {
          return files(src);
        } catch {
          return [];
        }
      })
      .filter((f) => !/\.test\.tsx?$/.test(f) && /from ['"]vitest(\/[^'"]*)?['"]/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f));
    expect(offenders).toEqual([]);
  });
});
