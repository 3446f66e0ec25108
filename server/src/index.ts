// @presence/server public surface: build or start the HTTP server.
export { type App, buildApp, VERSION } from './app';
export { type Config, ConfigError, loadConfig } from './config';
// For a host that builds the app itself: the server's own request logging (one JSON line per request).
export { type ProductionLogging, productionLogging } from './logger';
// For a host that builds the app itself: one Metrics for createCore (`metrics.core`) and buildApp.
export { meteredChain, meteredStore } from './metrics/metered-ports';
export { createMetrics, type Metrics } from './metrics/metrics';
export { type RunningServer, type StartOptions, startServer } from './start-server';
