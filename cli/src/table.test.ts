import { expect, it } from 'vitest';
import { renderPairs, renderTable, shortTime } from './table';

it('aligns columns, right-aligns numbers, and leaves no trailing spaces', () => {
  const out = renderTable(
    [{ header: 'KEY' }, { header: 'WEIGHT', align: 'right' }, { header: 'NOTE' }],
    [
      ['token:WETH', '1.00', 'main'],
      ['pair:WETH-USDC', '0.25', ''],
    ],
  );
  expect(out).toBe(
    ['KEY             WEIGHT  NOTE', 'token:WETH        1.00  main', 'pair:WETH-USDC    0.25  '].join('\n').replace(/ +$/gm, ''),
  );
  expect(out.split('\n').every((l) => !l.endsWith(' '))).toBe(true);
});

it('renders label/value pairs and short UTC times', () => {
  expect(
    renderPairs([
      ['name', 'Ada'],
      ['mode', 'live'],
    ]),
  ).toBe('name  Ada\nmode  live');
  expect(shortTime('2025-01-31T09:05:07.123Z')).toBe('2025-01-31 09:05');
  expect(shortTime(null)).toBe('-');
});

it('as TSV (stdout not a terminal): one tab between cells, no padding, tabs and newlines in a cell become spaces, no header row unless asked', () => {
  const columns = [{ header: 'KEY' }, { header: 'WEIGHT', align: 'right' as const }, { header: 'NOTE' }];
  const rows = [
    ['token:WETH', '1.00', 'main\tpool'],
    ['pair:WETH-USDC', '0.25', 'two\nlines'],
  ];
  // `presence memory list | cut -f1` prints keys, not KEY first.
  expect(renderTable(columns, rows, 'tsv')).toBe('token:WETH\t1.00\tmain pool\npair:WETH-USDC\t0.25\ttwo lines');
  expect(renderTable(columns, rows, 'tsv', { headers: true })).toBe(
    'KEY\tWEIGHT\tNOTE\ntoken:WETH\t1.00\tmain pool\npair:WETH-USDC\t0.25\ttwo lines',
  );
  expect(renderPairs([['name', 'Ada']], 'tsv')).toBe('name\tAda');
});
