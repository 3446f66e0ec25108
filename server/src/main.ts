// `npm start` (through tsx, for development): the same start as `presence-server serve` runs
// from the built dist/.
import { serve } from './serve';

// Not awaited on purpose: serve() exits the process on every failure it knows, and anything
// else it rejects with reaches the crash handler it installs first (crash-exit.ts).
void serve();
