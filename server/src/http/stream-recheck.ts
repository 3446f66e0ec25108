// With several servers on one database, a key revoked or rotated on another server is not
// heard of here (core's onRevoke/onRotate are in-process). Every `everyMs` each distinct key
// and secret of this server's open streams is looked up again: a revoked key or a secret that
// stopped working closes its streams, a rotation's grace window schedules their end. One
// store read per distinct secret per second, however many streams share it; with the 1 s
// default a revocation anywhere closes the key's streams everywhere within about a second.
import type { Core } from '@presence/core';
import type { StreamRegistry } from './stream-registry';

export function startStreamRecheck({
  core,
  streams,
  everyMs,
  onError,
}: {
  core: Core;
  streams: StreamRegistry;
  everyMs: number;
  onError: (err: unknown) => void;
}): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    // One pass at a time (`running`); its failures go to onError, the next pass runs as usual.
    void (async () => {
      for (const s of streams.secrets()) {
        const v = await core.keys.secretValidity(s);
        if (v === null) streams.closeSecret(s.keyId, s.secretHash);
        else if (v.validUntil !== null) streams.retire({ ...s, validUntil: v.validUntil });
      }
    })()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
