// With several servers on one database, a key revoked or rotated on another server is not
// heard of through core's in-process onRevoke/onRotate. Every server hears of it all the same:
// the store announces each change of a key's record at commit (PostgreSQL NOTIFY, cluster.ts),
// and the streams opened here with that key are looked up again at once — a revoked key or a
// secret that stopped working closes them, a rotation's grace window schedules their end. A
// re-established listening connection (notices may have been missed) looks at every open one.
// Cost follows work: a read per announced change of a key with streams open here. Against a
// listening connection that dies without the driver noticing, every open one is also looked
// at every `everyMs` (a safety net, not the way a revocation arrives; 0: never).
import type { Core } from '@presence/core';
import type { StreamRegistry } from './stream-registry';

export function startStreamRecheck({
  core,
  streams,
  everyMs = 0,
  onError,
}: {
  core: Core;
  streams: StreamRegistry;
  everyMs?: number;
  onError: (err: unknown) => void;
}): () => void {
  const recheck = (keyId?: string) => {
    const open = streams.secrets().filter((s) => keyId === undefined || s.keyId === keyId);
    if (open.length === 0) return;
    void (async () => {
      for (const s of open) {
        const v = await core.keys.secretValidity(s);
        if (v === null) streams.closeSecret(s.keyId, s.secretHash);
        else if (v.validUntil !== null) streams.retire({ ...s, validUntil: v.validUntil });
      }
    })().catch(onError);
  };
  const stop = core.keys.onStoreChange({ changed: (keyId) => recheck(keyId), resync: () => recheck() });
  const timer = everyMs > 0 ? setInterval(() => recheck(), everyMs) : undefined;
  timer?.unref();
  return () => {
    stop();
    clearInterval(timer);
  };
}
