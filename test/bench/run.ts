// `npm run bench`: runs every benchmark and prints one table of figures. No assertions:
// figures are read by people and compared with the targets beside them.

import { clusterBenchmarks } from './cluster.bench';
import { clusterMessagingBenchmarks } from './cluster-messaging.bench';
import { conversationBenchmarks } from './conversation.bench';
import { devnetBenchmarks } from './devnet.bench';
import { neighbourBenchmarks } from './neighbour.bench';
import { outageBenchmarks } from './outage.bench';
import { packagesBenchmarks } from './packages.bench';
import { plannerBenchmarks } from './planner.bench';
import { platformBenchmarks } from './platform.bench';
import { postgresServerBenchmarks } from './postgres-server.bench';
import { scaleBenchmarks } from './scale.bench';
import { serveBenchmarks } from './serve.bench';
import { printTable, type Row } from './stats';
import { storeBenchmarks } from './store.bench';
import { surfacesBenchmarks } from './surfaces.bench';
import { surfacesTakeoverBenchmarks } from './surfaces-takeover.bench';
import { walletBenchmarks } from './wallet.bench';
import { webhooksBenchmarks } from './webhooks.bench';

const rows: Row[] = [];
const started = performance.now();
// BENCH_ONLY=auth|pin|fanout|caps|wallet|conversation|planner|neighbour|store|pgserver|scale|cluster-msg|cluster|serve|packages|surfaces|devnet|outage|webhooks runs one section while working on it.
const only = process.env.BENCH_ONLY;
if (!only || ['auth', 'pin', 'fanout', 'caps'].includes(only)) await platformBenchmarks(rows, only);
if (!only || only === 'wallet') await walletBenchmarks(rows);
if (!only || only === 'conversation') await conversationBenchmarks(rows);
if (!only || only === 'planner') await plannerBenchmarks(rows);
if (!only || only === 'neighbour') await neighbourBenchmarks(rows);
if (!only || only === 'store') await storeBenchmarks(rows);
if (!only || only === 'pgserver') await postgresServerBenchmarks(rows);
if (!only || only === 'scale') await scaleBenchmarks(rows);
if (!only || only === 'cluster-msg') await clusterMessagingBenchmarks(rows);
if (!only || only === 'serve') await serveBenchmarks(rows);
if (!only || only === 'cluster') await clusterBenchmarks(rows);
if (!only || only === 'packages') await packagesBenchmarks(rows);
if (!only || only === 'surfaces') {
  await surfacesBenchmarks(rows);
  await surfacesTakeoverBenchmarks(rows);
}
if (!only || only === 'devnet') await devnetBenchmarks(rows);
if (!only || only === 'outage') await outageBenchmarks(rows);
if (!only || only === 'webhooks') await webhooksBenchmarks(rows);
printTable(rows);
process.stdout.write(
  `\n(${((performance.now() - started) / 1000).toFixed(0)} s on ${process.version}, ${process.platform}/${process.arch})\n`,
);
process.exit(0);
