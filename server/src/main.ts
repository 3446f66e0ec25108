// `npm start` (through tsx, for development): the same start as `presence-server serve` runs
// from the built dist/.
import { serve } from './serve';

void serve();
