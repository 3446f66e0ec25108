// Small display helpers. Amounts stay strings from end to end: no floats.

/** "65000.00 USD" → "65,000.00 USD"; anything that is not "<number> <unit>" is returned as is. */
export function formatAmount(amount: string): string {
  const m = /^(-?)(\d+)(\.\d+)?(\s+\S+)?$/.exec(amount.trim());
  if (!m) return amount;
  const [, sign, int = '', frac = '', unit = ''] = m;
  return `${sign}${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${frac}${unit}`;
}

/** Milliseconds left → "9:05" or "1:02:03"; never negative. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** 0xabcdef…1234 for long hashes and addresses; the full value belongs in a title or a copy button. */
export function shortHex(hex: string, head = 6, tail = 4): string {
  return hex.length <= head + tail + 1 ? hex : `${hex.slice(0, head)}…${hex.slice(-tail)}`;
}

export const spendLabels = {
  locked: { title: 'Locked', detail: 'The policy allows no spending.' },
  confirm_all: { title: 'Confirm all', detail: 'Every action waits for your approval.' },
  guarded: { title: 'Guarded', detail: 'Small actions run; larger ones wait for your approval.' },
} as const;
