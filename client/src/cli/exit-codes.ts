// One exit code per class of failure, so scripts can branch without parsing text.
// Documented in client/README.md; never renumber.
import { CommanderError } from 'commander';
import { PresenceApiError, PresenceNetworkError } from '../errors';
import { CliError } from './cli-error';

export const exitCodes = {
  ok: 0,
  other: 1,
  usage: 2,
  auth: 3,
  scope: 4,
  policy: 5,
  network: 6,
  notFound: 7,
} as const;

const byType: Record<string, number> = {
  auth: exitCodes.auth,
  scope: exitCodes.scope,
  policy_block: exitCodes.policy,
  confirm_expired: exitCodes.policy,
  confirm_resolved: exitCodes.policy,
  not_found: exitCodes.notFound,
  invalid_request: exitCodes.usage,
  idempotency_mismatch: exitCodes.usage,
  payload_too_large: exitCodes.usage,
  unsupported_media_type: exitCodes.usage,
  method_not_allowed: exitCodes.usage,
  rate_limited: exitCodes.network,
};

export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  if (err instanceof PresenceNetworkError) return exitCodes.network;
  if (err instanceof PresenceApiError) {
    const code = byType[err.type];
    if (code !== undefined) return code;
    // Types this CLI does not know yet still land in the right class by status.
    if (err.status === 401) return exitCodes.auth;
    if (err.status === 403) return exitCodes.scope;
    if (err.status === 404) return exitCodes.notFound;
    if (err.status === 429 || err.status >= 500) return exitCodes.network;
  }
  return exitCodes.other;
}
