// The operator's surface tokens: making one for a bot (its secret shown once), listing them
// with how many keys each links, revoking one, and resolving a bearer token to its surface.
// The token belongs to no account; what it may do is in surface-service.ts.
import type { SurfaceView } from '@presence/protocol';
import { type Clock, iso } from '../clock/clock';
import { PresenceError } from '../errors/presence-error';
import type { SurfaceRecord } from '../store/surface-records';
import type { SurfaceStorePort } from '../store/surface-store-port';
import { hashSurfaceToken, looksLikeSurfaceToken, newSurfaceId, newSurfaceToken } from './surface-token';

export type SurfacePrincipal = { surfaceId: string; name: string };

const SURFACE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

const view = (s: SurfaceRecord): SurfaceView => ({
  id: s.id,
  name: s.name,
  last4: s.last4,
  created_at: s.created_at,
  revoked_at: s.revoked_at,
});

/** The surface-token methods of the surface service; `revoked` tells this server's streams. */
export function surfaceTokenMethods({
  surfaces,
  clock,
  revoked,
}: {
  surfaces: SurfaceStorePort;
  clock: Clock;
  revoked: (surfaceId: string) => void;
}) {
  async function named(idOrName: string): Promise<SurfaceRecord> {
    const all = await surfaces.listSurfaces();
    const s = all.find((x) => x.id === idOrName) ?? all.find((x) => x.name === idOrName && x.revoked_at === null);
    if (!s) throw new PresenceError('not_found', `no surface ${idOrName}`);
    return s;
  }

  return {
    async create(name: string): Promise<{ surface: SurfaceView; token: string }> {
      if (!SURFACE_NAME.test(name))
        throw new PresenceError('invalid_request', 'a surface name is lowercase letters, digits, "-" or "_" (at most 64)');
      if ((await surfaces.listSurfaces()).some((s) => s.name === name && s.revoked_at === null))
        throw new PresenceError('conflict', `a live surface named ${name} exists; revoke it first or pick another name`);
      const token = newSurfaceToken();
      const record: SurfaceRecord = {
        id: newSurfaceId(),
        name,
        hash: hashSurfaceToken(token),
        last4: token.slice(-4),
        created_at: iso(clock.now()),
        revoked_at: null,
      };
      await surfaces.insertSurface(record);
      return { surface: view(record), token };
    },

    async list(): Promise<(SurfaceView & { links: number })[]> {
      return Promise.all((await surfaces.listSurfaces()).map(async (s) => ({ ...view(s), links: await surfaces.countSurfaceLinks(s.id) })));
    },

    /** By id, or by the name of a live surface. Its token stops working at once; its links stay (a new token cannot take them over). */
    async revoke(idOrName: string): Promise<SurfaceView> {
      const s = await surfaces.revokeSurface((await named(idOrName)).id, iso(clock.now()));
      if (!s) throw new PresenceError('not_found', `no surface ${idOrName}`);
      revoked(s.id);
      return view(s);
    },

    /** Resolves a bearer surface token, or throws 401 `auth`. */
    async authenticate(token: string): Promise<SurfacePrincipal> {
      if (!looksLikeSurfaceToken(token)) throw new PresenceError('auth', 'malformed surface token: expected prs_surface_…');
      const s = await surfaces.findSurfaceByHash(hashSurfaceToken(token));
      if (!s) throw new PresenceError('auth', 'unknown surface token');
      if (s.revoked_at !== null) throw new PresenceError('auth', 'this surface token was revoked');
      return { surfaceId: s.id, name: s.name };
    },

    /** Whether the surface's token still works (streams look again now and then: a revocation on another server). */
    async isLive(surfaceId: string): Promise<boolean> {
      const s = (await surfaces.listSurfaces()).find((x) => x.id === surfaceId);
      return s !== undefined && s.revoked_at === null;
    },
  };
}
