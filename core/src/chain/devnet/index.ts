// The embedded anvil devnet, for `@presence/core`'s chain surface today and a package subpath
// (`@presence/core/devnet`) later.

export { anvilBinary, freeLoopbackPort, spawnAnvil } from './anvil-process';
export { type AttachOptions, attachDevnet, type DeploymentBook, fileDeploymentBook } from './attach';
export { FUNDING as DEVNET_FUNDING } from './deploy';
export { type Deployment, DeploymentSchema } from './deployment';
export { DEVNET_ANVIL_ARGS, type Devnet, type DevnetOptions, startDevnet } from './devnet';
