// `presence-server backup DIR` / `restore DIR` for the embedded store. A running server is
// paused (SIGSTOP) for the copy and resumed (SIGCONT) after it: every thread of it stops
// between two system calls, so the copy is exactly what a kill -9 at that instant would leave
// on disk — which the server is built to start from (an answered write is on disk, a torn
// last line of a log is cut at the next start). Its requests wait meanwhile; none fail. With
// no server running, the command takes the data directory's lock for the copy instead.
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeTreePrivate } from '@presence/core';
import { lockHolder, takeDataDirLock } from './data-dir-lock';
import { refuseImportedBackup } from './imported-marker';
import { StartRefused } from './start-refused';

/** What is not part of a copy: the pid lock names a process of this host, not the data. */
const NOT_COPIED = new Set(['server.pid']);
const MANIFEST = 'presence-backup.json';

const isEmptyDir = (dir: string) => !existsSync(dir) || readdirSync(dir).length === 0;

function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(from)) {
    if (NOT_COPIED.has(name)) continue;
    // A document's temp file is a write in progress: the document it would replace is the copy.
    cpSync(path.join(from, name), path.join(to, name), { recursive: true, filter: (src) => !src.endsWith('.tmp') });
  }
  makeTreePrivate(to);
}

/** Runs `copy` with the process `pid` paused; resumes it whatever happens, on our own signals too. */
function whilePaused(pid: number, copy: () => void): void {
  const resume = () => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // it is gone
    }
  };
  const onSignal = (signal: NodeJS.Signals) => {
    resume();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.kill(pid, 'SIGSTOP');
  try {
    copy();
  } finally {
    resume();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

export type BackupResult = { files: number; paused: number | null };

export function backupDataDir(dataDir: string, dest: string, now = new Date()): BackupResult {
  if (!existsSync(path.join(dataDir, 'data'))) throw new StartRefused(`${dataDir} holds no Presence data (no data/ directory)`);
  refuseImportedBackup(dataDir, 'backup');
  if (!isEmptyDir(dest)) throw new StartRefused(`${dest} is not empty: back up into a new or empty directory`);
  if (path.resolve(dest).startsWith(`${path.resolve(dataDir)}${path.sep}`)) throw new StartRefused(`${dest} is inside ${dataDir}`);
  const holder = lockHolder(dataDir);
  if (holder !== null) whilePaused(holder, () => copyTree(dataDir, dest));
  else {
    const unlock = takeDataDirLock(dataDir);
    try {
      copyTree(dataDir, dest);
    } finally {
      unlock();
    }
  }
  writeFileSync(path.join(dest, MANIFEST), `${JSON.stringify({ from: dataDir, at: now.toISOString(), server_pid: holder })}\n`, {
    mode: 0o600,
  });
  return { files: countFiles(dest), paused: holder };
}

export function restoreDataDir(backup: string, dataDir: string): number {
  if (!existsSync(path.join(backup, MANIFEST))) throw new StartRefused(`${backup} is not a presence-server backup (no ${MANIFEST})`);
  refuseImportedBackup(backup, 'restore');
  const holder = lockHolder(dataDir);
  if (holder !== null)
    throw new StartRefused(`a Presence server (pid ${holder}) is running on ${dataDir}; stop it first, then run this again`);
  if (!isEmptyDir(dataDir))
    throw new StartRefused(`${dataDir} is not empty: restore into a new or empty PRESENCE_DATA_DIR (move the old one aside)`);
  const unlock = takeDataDirLock(dataDir);
  try {
    for (const name of readdirSync(backup)) {
      if (name !== MANIFEST) cpSync(path.join(backup, name), path.join(dataDir, name), { recursive: true });
    }
    makeTreePrivate(dataDir);
  } finally {
    unlock();
  }
  return countFiles(dataDir);
}

function countFiles(dir: string): number {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).length;
}
