// Parcel alias target for `zod` (see "alias" in package.json), used only by `plasmo build`.
//
// Plasmo 0.90.5 bundles with Parcel 2.9.3, whose dependency pruning mishandles zod 4's entry
// (zod/index.js: `import * as z from "./v4/classic/external.js"; export { z }`) in a package
// marked side-effect free: it drops ./v4/classic/external.js, so `z` arrives as an empty
// namespace and the first `z.enum(…)` in @presence/protocol throws at load
// ("(0, a.z).enum is not a function"). A namespace import of the exported `zod/v4` entry
// asks Parcel for every symbol, so nothing is pruned. Same zod, same schemas; vitest and tsc
// resolve `zod` normally. The e2e test fails the build if Parcel excludes any module again.
import * as z from 'zod/v4';

export { z };
export default z;
