// Phrasings written blind: each batch by someone who had read only a one-page brief of the
// reading forms (never this reader, nor the corpus), typing as the personas named. Each was
// first scored as a held-out check, by the reader as it stood then, and only then joined the
// corpus: A 63.8%, B 70.0%, C 58.8% on the reader of 2026-11-28; C 77.5% after A and B were
// read and the fixes made in general form (shorthand, words anywhere, questions by topic,
// daily reports and cancelling by their parts); then D 92.5%, E 87.5%, F 61.3% (the reader of
// 2026-11-28 read them 78.8/63.8/42.5%), after which a message is read sentence by sentence;
// then G 96.3%, H 77.5%, I 82.5% (idiom: "I don't suppose you could…", "do the needful",
// "market sell", "rotate … into"), after which a reason after the request is read past; then
// the last held-out check, J 88.8%, K 91.3%, L 96.3%: 221 of 240 (92.1%), every miss "not
// understood", no must-ask row acted on, no row acted on wrongly. A fifth round, M (2026-12-02:
// 60 chat-app messages, written before the reader was read), read 48 (80.0%); two of its misses
// were actions — "swap 0.1 eth to usdc tmrw" swapped now, and "swap 1,000 usdc to eth" spent the
// larger of two readings — and the planner remembered 2 of its 4 "remember" rows. After the
// fixes in general form (short times, a request put off or made a what-if in front, a condition
// after the action, a name where the address goes, "remember" asked politely): 60 of 60.
// docs/behaviour.md keeps the record.
// The rows are kept as written; `ask`, `not_now`, `none` and `unsupported` rows are checked
// as the corpus's must-ask and must-not-act rows are.

export { BLIND_A, BLIND_B, BLIND_C } from './phrasings.blind-a-c';
export { BLIND_D, BLIND_E, BLIND_F } from './phrasings.blind-d-f';
export { BLIND_G, BLIND_H, BLIND_I } from './phrasings.blind-g-i';
export { BLIND_J, BLIND_K, BLIND_L } from './phrasings.blind-j-l';
export { BLIND_M } from './phrasings.blind-m';
