// The scripts of the passkey pages, served from this origin (no CDN): the @simplewebauthn/browser
// bundle, read once from the installed package, and page.js below, which runs the page's one
// ceremony on a button press and says how it ended. Both load only with the page's CSP nonce.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

let bundle: string | null = null;
/** The UMD bundle (global SimpleWebAuthnBrowser); the package exports no subpath, so it is found beside its entry. */
export function webauthnBundle(): string {
  bundle ??= readFileSync(
    path.join(path.dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
    'utf8',
  );
  return bundle;
}

/** Posts to the page's own path (+ suffix); answers the status and the JSON body (a problem on failure). */
export const PAGE_SCRIPT = `(() => {
  'use strict';
  const body = document.body;
  const status = document.getElementById('status');
  const buttons = [...document.querySelectorAll('button')];
  const base = location.pathname.replace(/\\/+$/, '');
  const say = (state, text) => {
    body.dataset.state = state;
    status.textContent = text;
  };
  const settle = (state, text) => {
    say(state, text);
    for (const b of buttons) b.hidden = state !== 'no-passkey' && state !== 'refused' && state !== 'error';
    for (const b of buttons) b.disabled = false;
  };
  const post = async (suffix, data) => {
    const r = await fetch(base + suffix, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(data ?? {}), credentials: 'omit' });
    let json = null;
    try { json = await r.json(); } catch {}
    return { ok: r.ok, json };
  };
  const STATES = {
    confirm_expired: ['expired', 'This link has expired: nothing was executed.'],
    confirm_resolved: ['used', 'This link was already used.'],
    not_found: ['used', 'This link was already used or has expired.'],
    passkey_refused: ['refused', 'The passkey was refused.'],
    policy_block: ['blocked', 'Your spend policy now blocks this action.'],
  };
  const failed = (problem) => {
    const known = problem && STATES[problem.type];
    if (known) settle(known[0], problem.type === 'passkey_refused' || problem.type === 'policy_block' ? known[1] + ' ' + (problem.detail || '') : known[1]);
    else settle('error', 'Something went wrong' + (problem && problem.detail ? ': ' + problem.detail : '.'));
  };
  const ceremonyFailed = (e) => {
    if (e && e.name === 'NotAllowedError')
      settle('no-passkey', 'This device has no passkey for this account (or the request was cancelled).');
    else if (e && e.name === 'InvalidStateError') settle('refused', 'This device already has a passkey for this account.');
    else settle('error', 'The browser could not use a passkey: ' + (e && e.message ? e.message : e));
  };
  const lib = window.SimpleWebAuthnBrowser;
  const run = async (work) => {
    for (const b of buttons) b.disabled = true;
    say('working', 'Waiting for your device…');
    try { await work(); } catch (e) { settle('error', 'Something went wrong: ' + (e && e.message ? e.message : e)); }
  };
  const go = document.getElementById('go');
  const deny = document.getElementById('deny');
  // Both pages' ceremony: options from the server, the device's answer, then the answer posted.
  const ceremony = (start, done) => () => run(async () => {
    const options = await post('/options');
    if (!options.ok) return failed(options.json);
    let answer;
    try { answer = await start({ optionsJSON: options.json }); } catch (e) { return ceremonyFailed(e); }
    const result = await post('', answer);
    if (!result.ok) return failed(result.json);
    settle('done', done(result.json));
  });
  if (body.dataset.page === 'enroll' && go)
    go.addEventListener('click', ceremony((o) => lib.startRegistration(o), () => 'Passkey added. You can close this page.'));
  if (body.dataset.page === 'approve' && go)
    go.addEventListener('click', ceremony((o) => lib.startAuthentication(o), (r) => 'Approved and executed' + (r.block ? ' in block ' + r.block : '') + '.'));
  if (deny) deny.addEventListener('click', () => run(async () => {
    const denied = await post('/deny');
    if (!denied.ok) return failed(denied.json);
    settle('denied', 'Denied: nothing was executed.');
  }));
})();
`;
