// @presence/core/files: the file helpers a process outside core keeps its own data with (the
// bots' link table): an append-only JSON-lines log with group commit and atomic compaction,
// durable atomic writes, private modes, the one-process pid file, a key file and the cipher
// that seals secrets under it; and the redaction its log lines go through. Node built-ins
// only, so importing it loads nothing else of core (src/layout.test.ts holds it).
export { redactMessage } from '../errors/redact-message';
export { openParts, type SealedParts, sealParts } from '../keystore/aead';
export { loadOrCreateKeyFile } from '../keystore/key-file';
export { type AppendLog, createAppendLog, type Misfit } from './append-log';
export { PRIVATE_DIR, PRIVATE_FILE, writeFileAtomic } from './durable-file';
export { pidFileHolder, takePidFile } from './pid-lock';
export { type Tightened, tightenModes } from './private-tree';
