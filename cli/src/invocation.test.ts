// How hints name the CLI, decided on a real file tree: bins, symlinks and PATH directories
// made in a temporary directory, as npm and a global install lay them out.
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { invocation } from './invocation';

let root: string;
let script: string; // <root>/project/cli/bin/presence.js
let dotBin: string; // <root>/project/node_modules/.bin, holding presence → ../../cli/bin/presence.js
let globalBin: string; // <root>/global/bin, holding presence → the same file
let otherBin: string; // <root>/other/bin, holding an unrelated executable called presence

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'presence-invocation-'));
  script = path.join(root, 'project/cli/bin/presence.js');
  mkdirSync(path.dirname(script), { recursive: true });
  writeFileSync(script, '#!/usr/bin/env node\n');
  chmodSync(script, 0o755);
  dotBin = path.join(root, 'project/node_modules/.bin');
  globalBin = path.join(root, 'global/bin');
  otherBin = path.join(root, 'other/bin');
  for (const dir of [dotBin, globalBin, otherBin]) mkdirSync(dir, { recursive: true });
  symlinkSync(path.relative(dotBin, script), path.join(dotBin, 'presence'));
  symlinkSync(script, path.join(globalBin, 'presence'));
  writeFileSync(path.join(otherBin, 'presence'), '#!/bin/sh\n');
  chmodSync(path.join(otherBin, 'presence'), 0o755);
});

const project = () => path.join(root, 'project');
const PATH = (...dirs: string[]) => [...dirs, '/usr/bin', '/bin'].join(path.delimiter);

describe('invocation', () => {
  it('npx / npm exec / an npm script (the bin in node_modules/.bin, npm_command set) → npx presence', () => {
    for (const npm_command of ['exec', 'run-script']) {
      const env = { npm_command, PATH: PATH(dotBin) };
      expect(invocation({ script: path.join(dotBin, 'presence'), env, cwd: project() })).toBe('npx presence');
      expect(invocation({ script: path.join(dotBin, 'presence'), env, cwd: path.join(project(), 'client') })).toBe('npx presence');
    }
  });

  it('the first presence on PATH is this file (global install, npm link, .bin on PATH) → presence', () => {
    expect(invocation({ script: path.join(globalBin, 'presence'), env: { PATH: PATH(globalBin) }, cwd: root })).toBe('presence');
    expect(invocation({ script: path.join(dotBin, 'presence'), env: { PATH: PATH(dotBin) }, cwd: project() })).toBe('presence');
    // Run as a path, but on PATH too: the short form works as well.
    expect(invocation({ script, env: { PATH: PATH(globalBin) }, cwd: project() })).toBe('presence');
    // npm variables inherited by a process npm did not start this bin through do not count.
    expect(invocation({ script: path.join(globalBin, 'presence'), env: { npm_command: 'exec', PATH: PATH(globalBin) }, cwd: root })).toBe(
      'presence',
    );
  });

  it('not on PATH, or another presence comes first → node <the path it was run as>', () => {
    expect(invocation({ script, env: { PATH: PATH() }, cwd: project() })).toBe('node cli/bin/presence.js');
    expect(invocation({ script, env: { PATH: PATH(otherBin, globalBin) }, cwd: project() })).toBe('node cli/bin/presence.js');
    expect(invocation({ script, env: { npm_command: 'exec', PATH: PATH() }, cwd: project() })).toBe('node cli/bin/presence.js');
    // ./node_modules/.bin/presence typed out, without npm and not on PATH.
    expect(invocation({ script: path.join(dotBin, 'presence'), env: { PATH: PATH() }, cwd: project() })).toBe(
      'node node_modules/.bin/presence',
    );
    // Outside the working directory the path stays absolute; one that needs quoting is quoted.
    expect(invocation({ script, env: { PATH: PATH() }, cwd: otherBin })).toBe(`node ${script}`);
    expect(invocation({ script: "/opt/my tools/it's/presence.js", env: { PATH: PATH() }, cwd: '/srv' })).toBe(
      `node '/opt/my tools/it'\\''s/presence.js'`,
    );
  });
});
