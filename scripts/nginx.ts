// Where nginx is on this machine, for the deployment tests (test/src/cluster-nginx.test.ts,
// test/src/deploy-recipe.test.ts) and `npm test`'s pretest (scripts/ensure-nginx.ts), which
// installs Debian's package when it is missing: both always agree on the binary.
import { findOnPath, isExecutableFile as isExecutable } from './chromium';

/**
 * PRESENCE_NGINX when set, otherwise `nginx` on PATH, otherwise Debian's /usr/sbin/nginx (not
 * on a normal user's PATH); undefined when there is none. A PRESENCE_NGINX that is not an
 * executable file throws: it was asked for, so another nginx would hide the typo.
 */
export function findNginx(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const chosen = env.PRESENCE_NGINX;
  if (chosen) {
    if (!isExecutable(chosen)) throw new Error(`PRESENCE_NGINX=${chosen} is not an executable file`);
    return chosen;
  }
  return findOnPath(['nginx'], env) ?? (isExecutable('/usr/sbin/nginx') ? '/usr/sbin/nginx' : undefined);
}

export const NGINX_HINT = 'install nginx (Debian: apt-get install nginx) or set PRESENCE_NGINX to an nginx binary';
