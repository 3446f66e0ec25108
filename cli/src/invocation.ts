// How to run this CLI again from where the user is, for the commands it prints as hints
// (`approve: npx presence confirm cf_… --approve`): a hint must work when pasted as printed.
//
// - Started by npm (`npx presence`, `npm exec presence`, an npm script): npm put the bin's
//   node_modules/.bin on PATH for this process only, so the user's shell has it only through
//   npx → `npx presence`. npm says so in npm_command (exec, run-script …); the bin's own path
//   (argv[1]) inside a node_modules/.bin tells it apart from npm variables merely inherited.
// - Otherwise, when the first `presence` on PATH is this very file (a global install,
//   `npm link`, or PATH=$PWD/node_modules/.bin:$PATH) → `presence`.
// - Otherwise (`node cli/bin/presence.js`, a path typed out) → `node <that path>`,
//   relative to the working directory when it lies below it.
import { accessSync, constants, realpathSync } from 'node:fs';
import path from 'node:path';

export type InvocationInput = {
  /** process.argv[1]: the script node was given, as found on PATH or typed (not resolved through links). */
  script: string | undefined;
  env: NodeJS.ProcessEnv;
  cwd: string;
};

const NAME = 'presence';

export function invocation({ script, env, cwd }: InvocationInput): string {
  if (!script) return NAME;
  const dir = path.dirname(script);
  if (env.npm_command && path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules') return `npx ${NAME}`;
  const self = real(script);
  if (self !== undefined && firstOnPath(NAME, env.PATH ?? '', cwd) === self) return NAME;
  const rel = path.relative(cwd, script);
  const shown = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : script;
  return `node ${shellWord(shown)}`;
}

/** The resolved path of the first executable `name` a shell would run from PATH. */
function firstOnPath(name: string, pathVar: string, cwd: string): string | undefined {
  for (const dir of pathVar.split(path.delimiter)) {
    // An empty entry means the working directory (POSIX); relative entries are relative to it.
    const candidate = path.resolve(cwd, dir || '.', name);
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    return real(candidate);
  }
  return undefined;
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

/** Quoted for a POSIX shell when it has to be. */
export const shellWord = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
