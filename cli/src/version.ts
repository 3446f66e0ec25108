// The CLI's version, from its package.json (inlined by the build, so `--version` reads no file).
import pkg from '../package.json' with { type: 'json' };

export const CLI_VERSION: string = pkg.version;
