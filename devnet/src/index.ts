// @presence/devnet: a local EVM chain for developing and testing Presence — anvil with a seeded
// Uniswap V2 market, persisted under <dataDir>/devnet/. Optional for the server: a deployment on
// a real network (PRESENCE_RPC_URL) does without it.
export { DEVNET_MNEMONIC, FUNDING as DEVNET_FUNDING } from './deploy';
export { type Deployment, DeploymentSchema } from './deployment';
export { type Devnet, type DevnetOptions, startDevnet } from './devnet';
