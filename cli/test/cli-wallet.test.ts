// The CLI's wallet and conversation commands as a child process against a real server with
// its devnet: wallet, policy, intent (a held action prints how to approve it), confirm
// --approve executing it, chain views, chat (streamed, JSON, a piped session), standing, link.
// A held action's printed approve / deny lines are run as printed, through sh, whichever way
// the CLI was started: `npx presence` from the repo root (the README's way), `presence` with
// node_modules/.bin on PATH, or `node bin/presence.js`.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createPresenceClient, readableUsdIn } from '@presence/client';
import { createSoftAuthenticator } from '@presence/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, tempDir } from '../../client/test/helpers/server';
import { cleanEnv, repoRoot, runPresence, runShell } from './helpers/cli';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ chain: true });
});
afterAll(async () => {
  await s?.stop();
});

const env = (token = s.live) => {
  const home = tempDir('presence-cli-home-');
  return { HOME: home, XDG_CONFIG_HOME: path.join(home, 'xdg'), PRESENCE_URL: s.url, PRESENCE_TOKEN: token };
};

describe('presence wallet commands', () => {
  it('wallet: address, total, spend and an asset table with USD values; --json is the API object', async () => {
    const human = await runPresence(['wallet', '--headers'], env()); // piped, a table keeps its header only when asked
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^address\s+0x[0-9a-fA-F]{40}$/m);
    expect(human.stdout).toMatch(/^total\s+\d{1,3}(?:,\d{3})+\.\d\d USD$/m); // USD figures grouped, as chat writes them
    expect(human.stdout).toMatch(/^spend\s+guarded: per tx 50 USD, confirm over 10 USD, daily 200 USD$/m);
    expect(human.stdout).toMatch(/^ASSET\s+AMOUNT\s+VALUE$/m);
    expect(human.stdout).toMatch(/^USDC\s+\d+ USDC\s+\d{1,3}(?:,\d{3})*\.\d\d USD$/m);
    const json = JSON.parse((await runPresence(['wallet', '--json'], env())).stdout);
    expect(json).toMatchObject({ address: expect.any(String), policy: { spend: 'guarded' } });
  });

  it('intent held → prints how to approve; confirm list shows it; the printed approve line executes it', async () => {
    const held = await runPresence(['intent', 'swap 20 USDC for WETH'], env());
    expect(held.code).toBe(0);
    expect(held.stdout).toMatch(/^held\s+swap 20 USDC for about [\d.]+ WETH \(at least [\d.]+ WETH\)$/m);
    // Started as `node bin/presence.js` (from cli/, with no presence on PATH): the hints say so.
    const id = /^approve: node bin\/presence\.js confirm (cf_\w+) --approve$/m.exec(held.stdout)?.[1];
    expect(id).toBeTruthy();
    expect(held.stdout).toContain(`deny:    node bin/presence.js confirm ${id} --deny`);

    const list = await runPresence(['confirm', 'list', '--headers'], env());
    expect(list.stdout).toMatch(/^CONFIRM ID\s+STATUS\s+AMOUNT\s+VALUE\s+EXPIRES \(UTC\)\s+SUMMARY$/m);
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+held\\s+20 USDC\\s+\\d+\\.\\d\\d USD\\s`, 'm'));
    // The quote rounded for people (six significant digits), as in chat.
    expect(list.stdout).toMatch(/for about 0\.\d{0,8} WETH \(at least 0\.\d+ WETH\)$/m);
    expect(held.stdout).toMatch(/^amount\s+20 USDC \(\d+\.\d\d USD\)$/m);
    const bare = await runPresence(['confirm', '--headers'], env()); // a bare `confirm` lists, as it always did
    expect([bare.code, bare.stdout]).toEqual([0, list.stdout]);

    const neither = await runPresence(['confirm', id!], env());
    expect(neither.code).toBe(2);

    const approved = await runShell(hint(held.stdout, 'approve'), env(), process.cwd());
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^executed ${id}: tx 0x[0-9a-f]{64} \\(block \\d+\\)$`, 'm'));
    const json = JSON.parse((await runPresence(['confirm', 'list', '--all', '--json'], env())).stdout);
    expect(json.confirmations.find((c: { confirm_id: string }) => c.confirm_id === id)).toMatchObject({ status: 'executed' });

    const late = await runPresence(['confirm', id!, '--deny'], env());
    expect(late.code).toBe(5);
    expect(late.stderr).toMatch(/^error: confirm_resolved — /);
  });

  it('intent within policy prints the tx; over the cap exits 5 with policy_block; --json for scripts', async () => {
    const done = await runPresence(['intent', 'swap 5 USDC for WETH'], env());
    expect(done.stdout).toMatch(/^tx\s+0x[0-9a-f]{64} \(block \d+\)$/m);
    const blocked = await runPresence(['intent', 'swap 100 USDC for WETH'], env());
    expect(blocked.code).toBe(5);
    expect(blocked.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^error: policy_block — .*per_tx_cap/)]);
    const unresolved = await runPresence(['intent', 'swap 5 NOSUCHTOKEN for WETH'], env());
    expect(unresolved.code).toBe(2);
    expect(unresolved.stderr).toMatch(/^error: intent_unresolved — /);
    const sim = JSON.parse((await runPresence(['intent', 'swap 5 USDC for WETH', '--json'], env(s.test))).stdout);
    expect(sim).toMatchObject({ status: 'done', simulated: true });
  });

  it('intent takes the sentence unquoted too, as chat does (once a usage error: "Expected 1 argument but got 5")', async () => {
    const words = await runPresence(['intent', 'swap', '5', 'USDC', 'for', 'WETH', '--json'], env(s.test));
    expect([words.code, words.stderr]).toEqual([0, expect.not.stringMatching(/error/)]);
    expect(JSON.parse(words.stdout)).toMatchObject({ status: 'done', simulated: true, amount: '5 USDC' });
  });

  it('policy get, then set from an edited file; a file that is not JSON exits 2', async () => {
    const got = JSON.parse((await runPresence(['policy', 'get', '--json'], env())).stdout);
    const file = path.join(tempDir(), 'policy.json');
    writeFileSync(file, JSON.stringify({ ...got, daily_cap: '250 USD' }));
    const set = await runPresence(['policy', 'set', file], env());
    expect(set.code).toBe(0);
    expect(set.stdout).toContain(`stored policy version ${got.version + 1}`);
    expect(set.stdout).toMatch(/^daily_cap\s+250 USD$/m);
    writeFileSync(file, 'not json');
    const bad = await runPresence(['policy', 'set', file], env());
    expect(bad.code).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('not json');
  });

  it('chain pools and safety for people; tokens as JSON', async () => {
    const pools = await runPresence(['chain', 'pools', '--pair', 'WETH-USDC', '--headers'], env());
    expect(pools.stdout).toMatch(/^PAIR\s+PRICE\s+DEPTH\s+RESERVES$/m);
    expect(pools.stdout).toMatch(/^WETH-USDC\s+[\d.]+ USDC per WETH\s+[\d,.]+ USD\s+[\d.]+ WETH \+ [\d.]+ USDC$/m);
    expect(pools.stdout).toMatch(/^as of block \d+$/m);
    const safety = await runPresence(['chain', 'safety', '--token', 'SCAM'], env());
    expect(safety.stdout).toMatch(/^verdict\s+unsafe$/m);
    // The token as an argument reads the same; so does the pair, and both forms agreeing is fine.
    expect((await runPresence(['chain', 'safety', 'SCAM'], env())).stdout).toBe(safety.stdout);
    expect((await runPresence(['chain', 'safety', 'SCAM', '--token', 'SCAM'], env())).stdout).toBe(safety.stdout);
    expect((await runPresence(['chain', 'pools', 'WETH-USDC', '--headers'], env())).stdout).toBe(pools.stdout);
    const tokens = JSON.parse((await runPresence(['chain', 'tokens', '--json'], env())).stdout);
    expect(tokens.tokens.map((t: { symbol: string }) => t.symbol)).toContain('USDC');
  });

  it('chain positions: holdings with USD values and the total for people; the view as JSON', async () => {
    const human = await runPresence(['chain', 'positions', '--headers'], env());
    expect(human.code).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ASSET\s+AMOUNT\s+VALUE$/);
    expect(human.stdout).toMatch(/^USDC\s+[\d.]+ USDC\s+[\d,.]+ USD$/m);
    expect(lines.at(-1)).toMatch(/^total \d{1,3}(?:,\d{3})+\.\d\d USD at block \d+$/);
    const json = JSON.parse((await runPresence(['chain', 'positions', '--json'], env())).stdout);
    const view = await createPresenceClient({ baseUrl: s.url, token: s.live }).chain.view('positions');
    expect(json).toEqual(view);
    expect(json.holdings.map((h: { symbol: string }) => h.symbol)).toContain('USDC');
    expect(lines.at(-1)).toBe(`total ${readableUsdIn(view.total_usd)} at block ${view.as_of_block}`);
  });
});

describe('printed hints run as printed', () => {
  // The user's shell: no PRESENCE_TOKEN (the key comes from `login --with-token`), and only
  // what the README sets up on PATH.
  const userEnv = (extra: Record<string, string> = {}) => {
    const { PRESENCE_TOKEN: _token, ...rest } = env();
    return { ...rest, ...extra };
  };

  it('npx presence from the repo root (the README way): login from stdin, intent, then the printed approve line', async () => {
    const e = userEnv();
    const login = await runShell('npx presence login --with-token', e, repoRoot, `${s.live}\n`);
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(/^logged in\s+http:\/\/127\.0\.0\.1:\d+ — presence/m);
    const held = await runShell("npx presence intent 'swap 20 USDC for WETH'", e, repoRoot);
    expect(held.code).toBe(0);
    const approve = hint(held.stdout, 'approve');
    expect(approve).toMatch(/^npx presence confirm cf_\w+ --approve$/);
    expect(hint(held.stdout, 'deny')).toBe(approve.replace('--approve', '--deny'));
    const done = await runShell(approve, e, repoRoot);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^executed cf_\w+: tx 0x[0-9a-f]{64} \(block \d+\)$/m);
  });

  it('with node_modules/.bin on PATH (the README way to type plain presence): the hints say presence', async () => {
    const PATH = `${path.join(repoRoot, 'node_modules/.bin')}${path.delimiter}${cleanEnv({}).PATH}`;
    const e = userEnv({ PATH, PRESENCE_TOKEN: s.live });
    const held = await runShell("presence intent 'swap 20 USDC for WETH'", e, repoRoot);
    expect(held.code).toBe(0);
    const deny = hint(held.stdout, 'deny');
    expect(deny).toMatch(/^presence confirm cf_\w+ --deny$/);
    const denied = await runShell(deny, e, path.join(repoRoot, 'core')); // any directory: it is on PATH
    expect(denied.code).toBe(0);
    expect(denied.stdout).toMatch(/^denied cf_\w+$/m);
  });
});

/** The command line after `approve:` or `deny:` in the CLI's output. */
function hint(stdout: string, which: 'approve' | 'deny'): string {
  const line = new RegExp(`^${which}:\\s+(.+)$`, 'm').exec(stdout)?.[1];
  if (!line) throw new Error(`no ${which} line in:\n${stdout}`);
  return line;
}

describe('presence chat, standing, link', () => {
  it('chat streams the reply to stdout and tool calls to stderr; --json prints the result', async () => {
    const r = await runPresence(['chat', 'how', 'deep', 'is', 'WETH-USDC'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^WETH-USDC holds .* USD deep/);
    expect(r.stderr).toBe('· chain.pools pair=WETH-USDC\n');
    const json = JSON.parse((await runPresence(['chat', 'hello', '--json'], env())).stdout);
    expect(json).toMatchObject({ reply: expect.any(String), acted: false });
  });

  it('chat with --act and an action over confirm_over prints how to approve it', async () => {
    const r = await runPresence(['chat', '--act', 'swap 20 USDC for WETH'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/held for your confirmation \(cf_\w+\)\napprove: node bin\/presence\.js confirm cf_\w+ --approve/);
    const denied = await runShell(hint(r.stdout, 'deny'), env(), process.cwd());
    expect([denied.code, denied.stdout]).toEqual([0, expect.stringMatching(/^denied cf_\w+$/m)]);
  });

  it('a piped chat session answers each line; standing list and cancel; link makes a code', async () => {
    const session = await runPresence(['chat'], env(), 'hello\ntell me when WETH is below 2500 USD\n/exit\nnever sent\n');
    expect(session.code).toBe(0);
    const id = /\((st_\w+)\)/.exec(session.stdout)?.[1];
    expect(id).toBeTruthy();
    expect(session.stdout.trim().split('\n')).toHaveLength(2);

    const list = await runPresence(['standing', 'list'], env());
    expect(list.stdout).toMatch(new RegExp(`^${id}\\s+0\\s+-\\s+\\S+ \\S+\\s+tell me when WETH is below 2500 USD$`, 'm'));
    const listJson = await runPresence(['standing', 'list', '--json'], env());
    expect(listJson.code).toBe(0);
    expect(JSON.parse(listJson.stdout)).toEqual(await createPresenceClient({ baseUrl: s.url, token: s.live }).standing.list());
    expect(JSON.parse(listJson.stdout).standing).toContainEqual(
      expect.objectContaining({ id, text: 'tell me when WETH is below 2500 USD', fired_count: 0 }),
    );
    const cancel = await runPresence(['standing', 'cancel', id!], env());
    expect(cancel.stdout).toBe(`cancelled ${id}: "tell me when WETH is below 2500 USD"\n`);
    const again = await runPresence(['standing', 'cancel', id!], env());
    expect(again.code).toBe(7);

    const link = await runPresence(['link', '--scopes', 'talk'], env());
    expect(link.stdout).toMatch(/^code\s+[A-Z0-9]{20}$/m);
    expect(link.stdout).toMatch(/^scopes\s+talk$/m);
    const linkJson = await runPresence(['link', '--scopes', 'talk,wallet:read', '--ttl', '120', '--json'], env());
    expect(linkJson.code).toBe(0);
    const made = JSON.parse(linkJson.stdout);
    expect(made).toEqual({
      code: expect.stringMatching(/^[A-Z0-9]{20}$/),
      expires_at: expect.any(String),
      scopes: ['talk', 'wallet:read'],
    });
    const ttl = Date.parse(made.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(100_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
    // The printed code is a real one: it redeems once.
    const redeemed = await createPresenceClient({ baseUrl: s.url }).links.redeem(made.code, {
      surface: 'cli-test',
      user_id: 'u1',
      name: 'json',
    });
    expect(redeemed.scopes).toEqual(['talk', 'wallet:read']);
  });

  it('a hold over passkey_over prints its approve link; confirm --approve says a passkey is needed and exits 5', async () => {
    // A passkey for the account, made by the software authenticator through the enroll page's steps.
    const client = createPresenceClient({ baseUrl: s.url, token: s.live });
    const auth = createSoftAuthenticator({ origin: `http://localhost:${new URL(s.url).port}` });
    const post = async (url: string, body: unknown) =>
      (
        await fetch(`${s.url}${new URL(url).pathname}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json();
    const { url } = await client.passkeys.enroll();
    await post(url, auth.register(await post(`${url}/options`, {})));
    const { version: _v, updated_at: _u, ...policy } = await client.wallet.policy.get();
    await client.wallet.policy.set({ ...policy, passkey_over: '15 USD' });
    try {
      const held = await runPresence(['intent', 'swap 20 USDC for WETH'], env());
      expect(held.code).toBe(0);
      const link = /^approve: open (http:\/\/localhost:\d+\/approve\/[\w-]+) \(a passkey is needed: it is over your passkey_over\)$/m.exec(
        held.stdout,
      )?.[1];
      expect(link, held.stdout).toBeDefined();
      const id = /^deny: +node bin\/presence\.js confirm (cf_\w+) --deny$/m.exec(held.stdout)?.[1];
      const approve = await runPresence(['confirm', id as string, '--approve'], env());
      expect(approve.code).toBe(5);
      expect(approve.stderr.trim()).toBe(
        `error: passkey_required — ${id} is over your passkey_over, so it is approved with a passkey, not here: open ${link} on a device with your passkey (or deny it: node bin/presence.js confirm ${id} --deny)`,
      );
      expect((await runPresence(['confirm', id as string, '--deny'], env())).stdout).toMatch(/^denied cf_/);
    } finally {
      await client.wallet.policy.set(policy);
    }
  });
});
