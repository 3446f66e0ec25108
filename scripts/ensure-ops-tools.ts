// `npm test`'s pretest, third part: the operations tests run Prometheus's promtool on the alert
// rules and Debian's PostgreSQL for the backup drill and the deployment recipe. Find them as
// those tests do; when one is missing, install Debian's package.
import { ensureDebianPackage } from './apt';
import { DEBIAN_POSTGRES_HINT, findDebianPostgresBin, findPromtool, PROMTOOL_HINT } from './ops-tools';

ensureDebianPackage({
  who: 'ensure-ops-tools',
  what: 'promtool',
  pkg: 'prometheus',
  lookUp: () => findPromtool(),
  hint: PROMTOOL_HINT,
  takes: 'about 30 s',
});
ensureDebianPackage({
  who: 'ensure-ops-tools',
  what: "Debian's PostgreSQL (/usr/lib/postgresql/*/bin)",
  pkg: 'postgresql',
  lookUp: () => findDebianPostgresBin(),
  hint: DEBIAN_POSTGRES_HINT,
  takes: 'about 30 s',
});
