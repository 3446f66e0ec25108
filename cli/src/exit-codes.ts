// One exit code per class of failure, so scripts can branch without parsing text; which
// failure gets which code is exit-code-for.ts. Never renumber.

export const exitCodes = {
  ok: 0,
  other: 1,
  usage: 2,
  auth: 3,
  scope: 4,
  policy: 5,
  network: 6,
  notFound: 7,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];

/** Each code's class in a few words, for --help and the README table. */
export const exitCodeClasses: Record<ExitCode, string> = {
  0: 'success',
  1: 'other',
  2: 'usage or invalid input',
  3: 'auth',
  4: 'scope',
  5: 'refused (policy or state)',
  6: 'network or unavailable',
  7: 'not found',
};
