// core's dist/: one ESM entry per package export, named as `exports` says (the `presence-built`
// condition, which is also what a plain-Node run of the built server resolves in the repo), and
// the SQL migrations copied beside the bundles, where migrate.ts looks for them
// (`./migrations/` next to the module that reads them). A subpath added to `exports` without its
// built and published forms stops the build here rather than shipping a package that lacks it.
import { cpSync } from 'node:fs';
import { defineConfig } from 'tsup';
import pkg from './package.json' with { type: 'json' };

type Target = string | { 'presence-built'?: string; default?: string };
const published = pkg.publishConfig.exports as Record<string, unknown>;
const entry: Record<string, string> = {};
for (const [subpath, target] of Object.entries(pkg.exports as Record<string, Target>)) {
  if (typeof target === 'string') continue; // ./package.json
  const built = target['presence-built'];
  const source = target.default;
  if (!built?.startsWith('./dist/') || !/^\.\/(src|testing)\//.test(source ?? '') || !published[subpath]) {
    throw new Error(
      `core/package.json: export ${subpath} needs "presence-built": "./dist/….js", "default": "./src/….ts" (or ./testing/) and a publishConfig.exports entry`,
    );
  }
  entry[built.slice('./dist/'.length).replace(/\.js$/, '')] = source as string;
}

export default defineConfig({
  entry,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  splitting: true,
  // No .d.ts: the package is the built server's runtime (types would add ~30 s to every build).
  clean: true,
  // The PostgreSQL driver is bundled, as patched by patches/postgres+3.4.9.patch (the root's
  // postinstall applies it): the released 3.4.9 can end the process when a connection dies
  // with a write buffered (porsager/postgres#1208) or while a new one fetches its types
  // (#1192), and can leave queries waiting for good when a session ends (#1186, #1195,
  // docs/scaling.md). An installed core then carries the fixes instead of resolving the
  // unpatched driver from the registry.
  noExternal: ['postgres'],
  onSuccess: async () => {
    cpSync('src/store/postgres/migrations', 'dist/migrations', { recursive: true });
  },
});
