// `npm test`'s pretest: the extension's end-to-end test drives a real Chromium (the
// distribution's, never a downloaded one). Find it exactly as that test does; when it is
// missing, install Debian's `chromium` (scripts/apt.ts says when that is possible).
import { ensureDebianPackage } from './apt';
import { findChromium, INSTALL_HINT } from './chromium';

ensureDebianPackage({
  who: 'ensure-chromium',
  what: 'Chromium (PRESENCE_CHROMIUM, chromium or chromium-browser on PATH)',
  pkg: 'chromium',
  lookUp: () => findChromium(),
  hint: INSTALL_HINT,
  takes: 'takes a minute or two',
});
