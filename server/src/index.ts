// @presence/server public surface: build or start the HTTP server.
export { type App, buildApp, VERSION } from './app';
export { type Config, ConfigError, loadConfig } from './config';
export { type RunningServer, type StartOptions, startServer } from './start-server';
