// Which exit code a failure gets. The one mapping from problem types to codes: every type in
// the protocol's catalogue has its code here (the build breaks when the catalogue gains one),
// and cli/README.md's table lists them (a test keeps the two in step).
import { PresenceApiError, PresenceNetworkError } from '@presence/client';
import type { ProblemType } from '@presence/protocol';
import { CommanderError } from 'commander';
import { CliError } from './cli-error';
import { type ExitCode, exitCodes } from './exit-codes';

export const exitCodeByProblemType = {
  // The request or its input: fix it and try again.
  invalid_request: exitCodes.usage,
  method_not_allowed: exitCodes.usage,
  payload_too_large: exitCodes.usage,
  uri_too_long: exitCodes.usage,
  headers_too_large: exitCodes.usage,
  unsupported_media_type: exitCodes.usage,
  idempotency_mismatch: exitCodes.usage,
  intent_unresolved: exitCodes.usage,
  auth: exitCodes.auth,
  scope: exitCodes.scope,
  not_found: exitCodes.notFound,
  // Understood, and refused as things stand: the policy, an answered or expired confirmation,
  // a key or intent in the wrong state, or the chain itself saying no.
  policy_block: exitCodes.policy,
  confirm_expired: exitCodes.policy,
  confirm_resolved: exitCodes.policy,
  conflict: exitCodes.policy,
  chain_reverted: exitCodes.policy,
  chain_rejected: exitCodes.policy,
  // A hold over passkey_over is approved on its page, with a passkey, not here.
  passkey_required: exitCodes.policy,
  passkey_refused: exitCodes.policy,
  // Passing conditions (already retried by the SDK): the same command may work later.
  idempotency_in_progress: exitCodes.network,
  rate_limited: exitCodes.network,
  request_timeout: exitCodes.network,
  internal: exitCodes.network,
  model_unavailable: exitCodes.network,
  chain_unavailable: exitCodes.network,
  store_unavailable: exitCodes.network,
  unavailable: exitCodes.network,
} as const satisfies Record<ProblemType, ExitCode>;

const byType: Record<string, ExitCode | undefined> = exitCodeByProblemType;

export function exitCodeFor(err: unknown): ExitCode {
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof CommanderError) return err.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
  if (err instanceof PresenceNetworkError) return exitCodes.network;
  if (err instanceof PresenceApiError) {
    const code = Object.hasOwn(byType, err.type) ? byType[err.type] : undefined;
    if (code !== undefined) return code;
    // Types newer than this CLI still land in the right class by status.
    if (err.status === 401) return exitCodes.auth;
    if (err.status === 403) return exitCodes.scope;
    if (err.status === 404) return exitCodes.notFound;
    if (err.status === 409) return exitCodes.policy;
    if (err.status === 429 || err.status >= 500) return exitCodes.network;
    if (err.status >= 400) return exitCodes.usage;
  }
  return exitCodes.other;
}
