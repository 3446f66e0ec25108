// What the surface logs through: one line per entry at a level, with fields. The bots'
// logger (src/log.ts) is one, and redacts every token and key.
export type Log = (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
