// `npm test`'s pretest, second half: the deployment tests run the real nginx with
// deploy/nginx/ in front of the servers (Debian's package, run unprivileged on loopback
// ports). Find it as those tests do; when it is missing, install Debian's `nginx`.
import { ensureDebianPackage } from './apt';
import { findNginx, NGINX_HINT } from './nginx';

ensureDebianPackage({
  who: 'ensure-nginx',
  what: 'nginx (PRESENCE_NGINX, nginx on PATH or /usr/sbin/nginx)',
  pkg: 'nginx',
  lookUp: () => findNginx(),
  hint: NGINX_HINT,
  takes: 'about 15 s',
});
