#!/usr/bin/env node
// In the repository: runs the TypeScript CLI through tsx, so no build step is needed. The
// published package points its bin at dist/main.js instead (publishConfig.bin), plain Node.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
