// Runs before each component test file: a fresh fake chrome.* per test, DOM cleanup after.
import { cleanup, configure } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';
import { installFakeChrome } from './fake-chrome';

// findBy*/waitFor wait for what the popup fetches from a real server; testing-library's 1 s
// default is shorter than one request on a loaded 2-core CI machine (a flake seen in CI).
configure({ asyncUtilTimeout: 5_000 });

beforeEach(() => {
  installFakeChrome();
});
afterEach(() => {
  cleanup();
});
