// A server never runs on a schema newer than it knows: a database migrated by a newer
// Presence may hold rows this code would misread or overwrite. Checked before this server
// migrates anything, so a rolled-back binary leaves the database as it found it.
import type { MigrationStatus } from '@presence/core/postgres';
import { StartRefused } from './start-refused';

/** Throws StartRefused when the database has migrations this code does not ship. */
export function refuseNewerSchema(status: MigrationStatus, known: number[], where: string): void {
  if (status.unknown.length === 0) return;
  const theirs = Math.max(0, ...status.applied.map((a) => a.version));
  const ours = Math.max(0, ...known);
  const what =
    theirs > ours
      ? `has schema version ${theirs}, newer than this server knows (${ours})`
      : `has migration(s) ${status.unknown.join(', ')} that this server does not know (it knows up to ${ours})`;
  throw new StartRefused(
    `the database at ${where} ${what}: it was migrated by a newer Presence; run that release, or restore the backup taken before the upgrade`,
  );
}
