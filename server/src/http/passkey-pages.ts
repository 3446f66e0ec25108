// The two pages the server serves for passkeys (DESIGN.md "Passkey approvals"): Add passkey
// (an enroll link) and Approve with passkey / Deny (a hold's approve link). Plain HTML, readable
// on a phone, under a strict Content-Security-Policy: nothing but this origin, and the two
// scripts (the @simplewebauthn/browser bundle and page.js, both served from here) run only with
// the response's nonce. What a page shows comes from core; here it is only written out.
import { randomBytes } from 'node:crypto';
import type { ApprovalView, LinkState } from '@presence/core';
import type { FastifyReply } from 'fastify';

export const PASSKEY_ASSETS = '/assets/passkeys';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

/** What each final state says, for both pages. */
const STATE_TEXT: Record<Exclude<LinkState, 'open'>, string> = {
  done: 'Done.',
  denied: 'Denied: nothing was executed.',
  expired: 'This link has expired: nothing was executed.',
  used: 'This link was already used.',
  failed: 'This action failed when it was executed.',
};

const STYLE = `
body{font:17px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;padding:24px 16px;background:#f6f6f4;color:#1d1d1b}
main{max-width:28rem;margin:0 auto;background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px #0002}
h1{font-size:1.3rem;margin:0 0 12px}dl{margin:0 0 16px}dt{color:#6b6b66;font-size:.85rem;margin-top:8px}dd{margin:0;font-weight:600}
button{display:block;width:100%;font:inherit;font-weight:600;padding:14px;margin:10px 0 0;border-radius:10px;border:1px solid #1d1d1b;cursor:pointer}
#go{background:#1d1d1b;color:#fff}#deny{background:#fff;color:#1d1d1b}button:disabled{opacity:.45;cursor:default}
#status{min-height:1.5em;margin:14px 0 0;font-weight:600}[data-state=done] #status{color:#176b2c}
[data-state=refused] #status,[data-state=no-passkey] #status,[data-state=error] #status{color:#a3231a}
.note{color:#6b6b66;font-size:.85rem}`;

function page(
  reply: FastifyReply,
  { title, kind, state, body }: { title: string; kind: 'enroll' | 'approve'; state: string; body: string },
) {
  const nonce = randomBytes(16).toString('base64');
  reply
    .type('text/html; charset=utf-8')
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    )
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)} · Presence</title><style nonce="${nonce}">${STYLE}</style></head>
<body data-page="${kind}" data-state="${escapeHtml(state)}"><main><h1>${escapeHtml(title)}</h1>
${body}
<p id="status" role="status" aria-live="polite">${state === 'open' ? '' : escapeHtml(STATE_TEXT[state as Exclude<LinkState, 'open'>] ?? '')}</p>
</main>
<script nonce="${nonce}" src="${PASSKEY_ASSETS}/webauthn.js"></script>
<script nonce="${nonce}" src="${PASSKEY_ASSETS}/page.js"></script>
</body></html>`;
}

export function approvePage(reply: FastifyReply, v: ApprovalView) {
  const open = v.state === 'open';
  const expires = new Date(v.expires_at).toUTCString();
  return page(reply, {
    title: open ? 'Approve with passkey' : 'Approval',
    kind: 'approve',
    state: v.state,
    body: `<dl><dt>Action</dt><dd id="summary">${escapeHtml(v.summary)}</dd>
<dt>Amount</dt><dd id="amount">${escapeHtml(v.amount)} (${escapeHtml(v.value_usd)})</dd>
<dt>${open ? 'Expires' : 'Expired or expires'}</dt><dd id="expires"><time datetime="${escapeHtml(v.expires_at)}">${escapeHtml(expires)}</time></dd></dl>
${v.simulated ? '<p class="note">A test key\'s hold: approving simulates it, nothing is sent.</p>' : ''}
${open ? '<p class="note">It is over your passkey threshold, so your device confirms it.</p><button id="go" type="button">Approve with passkey</button><button id="deny" type="button">Deny</button>' : ''}`,
  });
}

export function enrollPage(reply: FastifyReply, state: LinkState) {
  const open = state === 'open';
  return page(reply, {
    title: 'Add passkey',
    kind: 'enroll',
    state: state === 'done' ? 'used' : state,
    body: open
      ? '<p>Add a passkey to your Presence account. Holds above your passkey threshold will then be approved with it (Face ID, Touch ID, Windows Hello or a security key).</p><button id="go" type="button">Add passkey</button>'
      : '',
  });
}

/** A link that is no enroll or approve link (mistyped, or pruned long after it expired). */
export function unknownLinkPage(reply: FastifyReply, kind: 'enroll' | 'approve') {
  reply.code(404);
  return page(reply, {
    title: 'Link not valid',
    kind,
    state: 'used',
    body: '<p>This link is not valid: it was used, has expired or was mistyped.</p>',
  }).replace(STATE_TEXT.used, '');
}
