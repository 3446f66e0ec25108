// When a held action from a conversation turn (or a standing intent) is resolved, the
// presence says so in the thread and on the events stream with cause resume:<confirm_id>,
// quoting the turn that asked for it so the context is not lost.

import { readableSummary, readableUsd } from '@presence/protocol';
import { formatUsd } from '../chain/amounts';
import type { Confirmations, Resolution } from '../intents/confirmations';
import { landed } from '../replies/replies';
import type { Thread } from '../thread/thread';

export function resumeText(r: Resolution): string {
  const asked = typeof r.record.context?.turn_text === 'string' ? ` (you asked: "${r.record.context.turn_text}")` : '';
  const what = readableSummary(r.record.summary, r.record.amount, readableUsd(formatUsd(BigInt(r.record.value_usd))));
  switch (r.status) {
    case 'executed':
      return `Approved and done: ${what}${asked}. ${landed(r.tx, r.block)}`;
    case 'denied':
      return `Understood, I dropped it: ${what}${asked}. Nothing was sent.`;
    case 'expired':
      return `Nobody approved ${what}${asked} in time, so I dropped it. Nothing was sent.`;
    case 'failed':
      return `I tried ${what}${asked}, but it failed: ${r.record.error ?? 'unknown error'}.`;
  }
}

export function createResumeNotices({ confirmations, thread }: { confirmations: Confirmations; thread: Thread }) {
  return confirmations.onResolved(async (r) => {
    if (r.record.source !== 'message' && r.record.source !== 'standing') return;
    // It names the held action and its amounts: what confirm events show, to wallet:read.
    await thread.say(r.caller, resumeText(r), `resume:${r.record.confirm_id}`, ['wallet:read']);
  });
}
