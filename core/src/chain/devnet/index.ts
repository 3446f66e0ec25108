// The embedded anvil devnet, for `@presence/core`'s chain surface today and a package subpath
// (`@presence/core/devnet`) later.
export { FUNDING as DEVNET_FUNDING } from './deploy';
export { type Deployment, DeploymentSchema } from './deployment';
export { type Devnet, type DevnetOptions, startDevnet } from './devnet';
