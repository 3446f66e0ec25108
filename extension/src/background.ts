// Plasmo entry: the background service worker. See background/main.ts.
import { startBackground } from './background/main';

startBackground();
