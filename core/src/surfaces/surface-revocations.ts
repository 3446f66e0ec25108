// Which surface tokens were revoked, told to whoever on this server holds their streams open.
// A revocation made here is told at once; one made on another server (or by the CLI) arrives
// as a notice when the store is shared, and is confirmed by reading the surface records.
import type { KeyChangeHandlers } from '../cluster/cluster-port';
import type { SurfaceStorePort } from '../store/surface-store-port';

export type SurfaceRevocations = ReturnType<typeof createSurfaceRevocations>;

export function createSurfaceRevocations({
  surfaces,
  surfaceChanges,
  onError,
}: {
  surfaces: Pick<SurfaceStorePort, 'listSurfaces'>;
  surfaceChanges?: { subscribe(h: KeyChangeHandlers): () => void };
  onError: (e: unknown) => void;
}) {
  const revokedListeners = new Set<(surfaceId: string) => void>();
  const revoked = (surfaceId: string) => {
    for (const l of revokedListeners) l(surfaceId);
  };
  // A revocation is an operator's rare act: one read of the (few) surface records per server.
  surfaceChanges?.subscribe({
    changed: (surfaceId) => {
      void surfaces
        .listSurfaces()
        .then((all) => {
          if (all.some((x) => x.id === surfaceId && x.revoked_at !== null)) revoked(surfaceId);
        })
        .catch(onError);
    },
    // Notices may have been missed: every revoked token's streams close (those left open are live).
    resync: () => {
      void surfaces
        .listSurfaces()
        .then((all) => {
          for (const x of all) if (x.revoked_at !== null) revoked(x.id);
        })
        .catch(onError);
    },
  });
  return {
    /** The surface's token was revoked on this server: its streams here close. */
    revoked,
    onSurfaceRevoked(listener: (surfaceId: string) => void): () => void {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },
  };
}
