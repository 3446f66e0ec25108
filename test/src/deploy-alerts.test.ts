// deploy/prometheus/presence-rules.yml as Prometheus reads it: `promtool check rules` accepts
// it (Debian's `prometheus` package; npm test's pretest installs it), and `promtool test rules`
// fires each alert on made-up series of the metrics the servers really export — and not on a
// healthy deployment's. The series' names and labels are checked against a real server's
// /metrics, so a renamed metric fails here instead of leaving an alert that never fires.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPromtool, PROMTOOL_HINT } from '../../scripts/ops-tools';
import { call, removeDir, startTestServer, type TestServer, tempDir } from './harness';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RULES = path.join(ROOT, 'deploy/prometheus/presence-rules.yml');
const dir = tempDir('presence-alerts-');
let s: TestServer;

beforeAll(async () => {
  s = await startTestServer();
}, 60_000);
afterAll(async () => {
  await s?.close();
  if (s) removeDir(s.dataDir);
  removeDir(dir);
});

function promtool(args: string[]) {
  const bin = findPromtool();
  if (!bin) throw new Error(`no promtool: ${PROMTOOL_HINT} (npm test's pretest does it: npx tsx scripts/ensure-ops-tools.ts)`);
  return spawnSync(bin, args, { encoding: 'utf8', timeout: 60_000, cwd: dir });
}

/** The rules without their annotations: promtool compares those too, and their wording is not what is tested here. */
function rulesWithoutAnnotations(): string {
  const out: string[] = [];
  let skipping = false;
  for (const line of readFileSync(RULES, 'utf8').split('\n')) {
    if (/^\s+annotations:$/.test(line)) {
      skipping = true;
      continue;
    }
    if (skipping && /^\s{10}/.test(line)) continue;
    skipping = false;
    out.push(line);
  }
  return out.join('\n');
}

const P = 'job="presence"';
/** An hour of one series: `start+stepxN` in promtool's notation, one sample a minute. */
const series = (name: string, labels: string, values: string) => ({ series: `${name}{${labels}}`, values });

/** Series of a deployment with every trouble the rules watch for. */
const troubled = [
  series('up', `${P},instance="127.0.0.1:8802",server="h-8802"`, '0x60'),
  series('up', `${P},instance="127.0.0.1:8801",server="h-8801"`, '1x60'),
  series('probe_success', 'job="presence-ready",instance="http://127.0.0.1:8801/v1/ready"', '0x60'),
  series('http_request_duration_seconds_count', `${P},server="h-8801",method="GET",route="/v1/memory",status="200"`, '0+90x60'),
  series('http_request_duration_seconds_count', `${P},server="h-8801",method="GET",route="/v1/memory",status="503"`, '0+10x60'),
  series('presence_leader', `${P},server="h-8801"`, '0x60'),
  series('presence_sse_streams_open', `${P},server="h-8801"`, '950x60'),
  series('presence_sse_streams_limit', `${P},server="h-8801"`, '1000x60'),
  // 80 of 100 writes over a second.
  series('presence_store_write_duration_seconds_bucket', `${P},server="h-8801",operation="appendEvent",outcome="ok",le="0.25"`, '0+10x60'),
  series('presence_store_write_duration_seconds_bucket', `${P},server="h-8801",operation="appendEvent",outcome="ok",le="1"`, '0+20x60'),
  series('presence_store_write_duration_seconds_bucket', `${P},server="h-8801",operation="appendEvent",outcome="ok",le="+Inf"`, '0+100x60'),
  series('presence_store_write_duration_seconds_count', `${P},server="h-8801",operation="appendEvent",outcome="error"`, '0+5x60'),
  series('presence_intents_total', `${P},server="h-8801",outcome="failed",mode="live"`, '0+5x60'),
  series('presence_intents_total', `${P},server="h-8801",outcome="done",mode="live"`, '0+5x60'),
  series('presence_chain_rpc_duration_seconds_count', `${P},server="h-8801",operation="getBalance",outcome="error"`, '0+60x60'),
  series('nodejs_eventloop_lag_p99_seconds', `${P},server="h-8801"`, '0.9x60'),
  series('node_systemd_unit_state', 'job="node",instance="host:9100",name="presence-backup.service",state="failed"', '1x60'),
  // Last triggered at time 0, and never again: evaluated a day and three hours later.
  series('node_systemd_timer_last_trigger_seconds', 'job="node",instance="host:9100",name="presence-backup.timer"', '0x1700'),
];

/** The same deployment, well: two servers up, one leader, few errors, fresh backups. */
const healthy = [
  series('up', `${P},instance="127.0.0.1:8801",server="h-8801"`, '1x60'),
  series('up', `${P},instance="127.0.0.1:8802",server="h-8802"`, '1x60'),
  series('probe_success', 'job="presence-ready",instance="http://127.0.0.1:8801/v1/ready"', '1x60'),
  series('http_request_duration_seconds_count', `${P},server="h-8801",method="GET",route="/v1/memory",status="200"`, '0+990x60'),
  series('http_request_duration_seconds_count', `${P},server="h-8801",method="GET",route="/v1/memory",status="503"`, '0+10x60'),
  series('presence_leader', `${P},server="h-8801"`, '1x60'),
  series('presence_leader', `${P},server="h-8802"`, '0x60'),
  series('presence_sse_streams_open', `${P},server="h-8801"`, '300x60'),
  series('presence_sse_streams_limit', `${P},server="h-8801"`, '1000x60'),
  series('presence_store_write_duration_seconds_bucket', `${P},server="h-8801",operation="appendEvent",outcome="ok",le="0.25"`, '0+100x60'),
  series('presence_store_write_duration_seconds_bucket', `${P},server="h-8801",operation="appendEvent",outcome="ok",le="+Inf"`, '0+100x60'),
  series('presence_intents_total', `${P},server="h-8801",outcome="done",mode="live"`, '0+5x60'),
  series('nodejs_eventloop_lag_p99_seconds', `${P},server="h-8801"`, '0.01x60'),
  series('node_systemd_unit_state', 'job="node",instance="host:9100",name="presence-backup.service",state="failed"', '0x60'),
  // Last triggered at the 40th minute of the hour: the test evaluates at 50 minutes.
  series('node_systemd_timer_last_trigger_seconds', 'job="node",instance="host:9100",name="presence-backup.timer"', '2400x60'),
];

const ALERTS: [string, Record<string, string>[]][] = [
  ['PresenceServerDown', [{ severity: 'page', job: 'presence', instance: '127.0.0.1:8802', server: 'h-8802' }]],
  ['PresenceNotReady', [{ severity: 'page', job: 'presence-ready', instance: 'http://127.0.0.1:8801/v1/ready' }]],
  ['PresenceHigh5xxRate', [{ severity: 'page', server: 'h-8801' }]],
  ['PresenceNoLeader', [{ severity: 'page' }]],
  ['PresenceStreamsNearCap', [{ severity: 'warn', job: 'presence', server: 'h-8801' }]],
  ['PresenceStoreSaturated', [{ severity: 'warn', server: 'h-8801' }]],
  ['PresenceStoreErrors', [{ severity: 'page', server: 'h-8801' }]],
  ['PresenceIntentsFailing', [{ severity: 'warn' }]],
  ['PresenceChainErrors', [{ severity: 'warn', server: 'h-8801' }]],
  ['PresenceEventLoopLag', [{ severity: 'warn', job: 'presence', server: 'h-8801' }]],
  ['PresenceBackupFailed', [{ severity: 'page', job: 'node', instance: 'host:9100', name: 'presence-backup.service', state: 'failed' }]],
  ['PresenceBackupMissing', [{ severity: 'page', job: 'node', instance: 'host:9100', name: 'presence-backup.timer' }]],
];

describe('deploy/prometheus/presence-rules.yml', () => {
  it('is accepted by promtool check rules', () => {
    const r = promtool(['check', 'rules', RULES]);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS: 13 rules found/);
  });

  it('fires every alert on a troubled deployment, and none on a healthy one (promtool test rules)', () => {
    // At 50 minutes the troubled deployment has been failing for longer than every rule's `for`,
    // and the healthy one's backup timer last ran 10 minutes ago; 27 hours on, a timer last
    // triggered at 0 has missed a run.
    writeFileSync(path.join(dir, 'rules.yml'), rulesWithoutAnnotations());
    const tests = {
      rule_files: ['rules.yml'],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: troubled,
          alert_rule_test: ALERTS.map(([alertname, alerts]) => ({
            eval_time: alertname === 'PresenceBackupMissing' ? '27h' : '50m',
            alertname,
            exp_alerts: alerts.map((exp_labels) => ({ exp_labels })),
          })),
        },
        {
          interval: '1m',
          input_series: healthy,
          alert_rule_test: [
            ...ALERTS.map(([alertname]) => ({ eval_time: '50m', alertname, exp_alerts: [] })),
            { eval_time: '50m', alertname: 'PresenceSeveralLeaders', exp_alerts: [] },
          ],
        },
      ],
    };
    // JSON is YAML.
    writeFileSync(path.join(dir, 'tests.yml'), JSON.stringify(tests));
    const r = promtool(['test', 'rules', 'tests.yml']);
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/SUCCESS/);
  });

  it('watches only metrics and labels a server really exports (the rest come from Prometheus, the blackbox and node exporters)', async () => {
    await call(s.url, 'GET', '/v1/health');
    const text = (await call(s.url, 'GET', '/metrics')).text;
    const exported = new Set(
      [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].flatMap((m) =>
        m[2] === 'histogram' ? [`${m[1]}_bucket`, `${m[1]}_count`] : [m[1] as string],
      ),
    );
    const rules = readFileSync(RULES, 'utf8');
    const named = new Set([...rules.matchAll(/\b((?:presence|http|nodejs)_[a-z0-9_]+)\{/g)].map((m) => m[1] as string));
    expect(named.size).toBeGreaterThan(6);
    expect([...named].filter((n) => !exported.has(n))).toEqual([]);
    // The labels the rules group by and match on are on the server's series.
    expect(text).toMatch(/^http_request_duration_seconds_count\{(?=[^}]*status="200")(?=[^}]*server="[^"]+")/m);
  });
});
