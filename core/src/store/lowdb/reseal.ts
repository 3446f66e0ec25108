// Re-seals the embedded store's secrets for a master key rotation (store/rotate-master-key.ts):
// each wallet document and each account's answer log is rewritten atomically, only when one
// of its records changes. The data directory must be locked by the caller (no server running).
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { type StoredIdempotencyRecord, WalletRecord } from '../documents';
import { writeFileAtomic } from '../durable-file';
import type { ResealCounts, Resealer } from '../rotate-master-key';
import { documentIds } from './files';

export async function resealLowdb(dataDir: string, reseal: Resealer): Promise<ResealCounts> {
  const root = path.join(dataDir, 'data');
  const counts: ResealCounts = { wallets: 0, answers: 0 };
  const walletsDir = path.join(root, 'wallets');
  for (const id of documentIds(walletsDir)) {
    const file = path.join(walletsDir, `${id}.json`);
    const doc = JSON.parse(await readFile(file, 'utf8')) as { wallet: unknown };
    if (!doc.wallet) continue;
    const next = reseal.wallet(WalletRecord.parse(doc.wallet));
    if (!next) continue;
    await writeFileAtomic(file, JSON.stringify({ ...doc, wallet: next }));
    counts.wallets++;
  }
  const answersDir = path.join(root, 'idempotency');
  const logs = existsSync(answersDir) ? readdirSync(answersDir).filter((n) => /^[A-Za-z0-9_-]{1,64}\.jsonl$/.test(n)) : [];
  for (const name of logs) {
    const accountId = name.slice(0, -'.jsonl'.length);
    const file = path.join(answersDir, name);
    const lines = (await readFile(file, 'utf8')).split('\n').filter((l) => l.trim() !== '');
    let changed = 0;
    const out = lines.map((line) => {
      const next = reseal.answer(accountId, JSON.parse(line) as StoredIdempotencyRecord);
      if (!next) return line;
      changed++;
      return JSON.stringify(next);
    });
    if (changed === 0) continue;
    await writeFileAtomic(file, `${out.join('\n')}\n`);
    counts.answers += changed;
  }
  return counts;
}
