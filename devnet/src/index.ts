// @presence/devnet: a local EVM chain for developing and testing Presence — anvil with a seeded
// Uniswap V2 market, persisted under <dataDir>/devnet/. Optional for the server: a deployment on
// a real network (PRESENCE_RPC_URL) does without it.
export { anvilBinary, freeLoopbackPort, spawnAnvil } from './anvil-process';
export { type AttachOptions, attachDevnet, type DeploymentBook, fileDeploymentBook } from './attach';
export { DEVNET_MNEMONIC, FUNDING as DEVNET_FUNDING } from './deploy';
export { type Deployment, DeploymentSchema } from './deployment';
export { DEVNET_ANVIL_ARGS, type Devnet, type DevnetOptions, hasCode, startDevnet } from './devnet';
