// The viem adapter of the chain port: the `@presence/core/viem` subpath.
export { createViemChain, type ViemChainOptions } from './viem-chain';
