// Aligned plain-text tables for people; programs use --json instead. Column widths come
// from the widest cell; the last column is not padded so lines carry no trailing spaces.
// When stdout is not a terminal (a pipe, a file) the same rows come out as TSV, one tab
// between cells and no header row, as `gh` does: `presence memory list | cut -f1` prints keys
// only (`--headers` keeps the header row for a reader that wants it).

export type Column = { header: string; align?: 'left' | 'right' };

/** `aligned` for a terminal, `tsv` for anything else. */
export type Layout = 'aligned' | 'tsv';

/** Tabs and newlines inside a cell would split it into more cells or rows: they become spaces. */
const tsvCell = (s: string) => s.replace(/[\t\r\n]+/g, ' ');

const width = (s: string) => [...s].length;

function pad(s: string, w: number, align: 'left' | 'right') {
  const fill = ' '.repeat(Math.max(0, w - width(s)));
  return align === 'right' ? fill + s : s + fill;
}

function render(rows: string[][], aligns: ('left' | 'right')[], layout: Layout): string {
  if (layout === 'tsv') return rows.map((r) => r.map(tsvCell).join('\t')).join('\n');
  const widths = aligns.map((_, i) => Math.max(0, ...rows.map((r) => width(r[i] ?? ''))));
  return rows
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 && aligns[i] !== 'right' ? cell : pad(cell, widths[i] ?? 0, aligns[i] ?? 'left')))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** A table, with a header row on a terminal (and in TSV only when `headers`); one array of strings per row. */
export function renderTable(columns: Column[], rows: string[][], layout: Layout = 'aligned', { headers = false } = {}): string {
  const aligns = columns.map((c) => c.align ?? 'left');
  const head = layout === 'aligned' || headers ? [columns.map((c) => c.header)] : [];
  return render([...head, ...rows], aligns, layout);
}

/** Label/value lines, as for a single record (`presence me`). */
export function renderPairs(pairs: [string, string][], layout: Layout = 'aligned'): string {
  return render(pairs, ['left', 'left'], layout);
}

/** `2025-01-31T09:05:07.123Z` → `2025-01-31 09:05` (UTC): enough for a person, short enough for a table. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return '-';
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return m ? `${m[1]} ${m[2]}` : iso;
}
