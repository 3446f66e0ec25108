// Small helpers for benchmark figures.
export const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? Number.NaN;
};
export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

export type Row = { benchmark: string; figure: string; target: string };
export function printTable(rows: Row[]) {
  const cols = ['benchmark', 'figure', 'target'] as const;
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (r: Record<string, string>) => cols.map((c, i) => r[c]?.padEnd(w[i] as number)).join('  ');
  process.stdout.write(`${line({ benchmark: 'benchmark', figure: 'figure', target: 'target' })}\n`);
  process.stdout.write(`${w.map((n) => '-'.repeat(n)).join('  ')}\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}
