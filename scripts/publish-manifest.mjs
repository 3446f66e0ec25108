#!/usr/bin/env node
// npm's prepack/postpack for the published packages (protocol, client, cli). Inside the
// monorepo their package.json points `exports`/`bin` at TypeScript source, so tests, tsx and
// tsc need no build; the tarball must point at dist/. pnpm and yarn apply `publishConfig`
// overrides on pack; npm does not, so `apply` does (keeping the original beside it) and copies
// the root LICENSE in, and `restore` puts both back. Plain JS: it runs before anything is built.
//   node ../scripts/publish-manifest.mjs apply|restore   (in the package directory)
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const manifest = 'package.json';
const kept = '.package.dev.json';
const license = 'LICENSE';

const step = process.argv[2];
if (step === 'apply') {
  // A pack that died between the two steps left the rewritten manifest: start from the kept one.
  restore();
  const text = readFileSync(manifest, 'utf8');
  const pkg = JSON.parse(text);
  const { publishConfig = {}, ...rest } = pkg;
  const { exports, bin, ...config } = publishConfig;
  const published = { ...rest, ...(exports ? { exports } : {}), ...(bin ? { bin } : {}), publishConfig: config };
  if (Object.keys(config).length === 0) delete published.publishConfig;
  const copyLicense = !existsSync(license);
  writeFileSync(kept, JSON.stringify({ manifest: text, copiedLicense: copyLicense }));
  writeFileSync(manifest, `${JSON.stringify(published, null, 2)}\n`);
  if (copyLicense) copyFileSync(path.join(root, license), license);
} else if (step === 'restore') {
  restore();
} else {
  console.error('usage: publish-manifest.mjs apply|restore');
  process.exit(2);
}

function restore() {
  if (!existsSync(kept)) return;
  const { manifest: text, copiedLicense } = JSON.parse(readFileSync(kept, 'utf8'));
  writeFileSync(manifest, text);
  if (copiedLicense) rmSync(license, { force: true });
  rmSync(kept);
}
