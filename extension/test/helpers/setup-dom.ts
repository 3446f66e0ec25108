// Runs before each component test file: a fresh fake chrome.* per test, DOM cleanup after.
import { cleanup } from '@testing-library/react';
import { afterEach, beforeEach } from 'vitest';
import { installFakeChrome } from './fake-chrome';

beforeEach(() => {
  installFakeChrome();
});
afterEach(() => {
  cleanup();
});
