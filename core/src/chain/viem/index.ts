// The viem adapter of the chain port, for `@presence/core`'s chain surface today and a
// package subpath (`@presence/core/viem`) later.
export { createViemChain, type ViemChainOptions } from './viem-chain';
