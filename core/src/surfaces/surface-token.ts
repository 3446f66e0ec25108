// Surface token material: `prs_surface_` + 40 base62 characters (like a key's secret, stored
// only as its SHA-256), and surface ids `srf_` + 16 base62 characters.
import { hashSecret, randomBase62 } from '../keys/key-secret';

const TOKEN_SHAPE = /^prs_surface_[0-9A-Za-z]{32,128}$/;

export const newSurfaceToken = () => `prs_surface_${randomBase62(40)}`;
export const newSurfaceId = () => `srf_${randomBase62(16)}`;
/** Whether a bearer value is a surface token's shape (not whether it is a stored one). */
export const looksLikeSurfaceToken = (s: string) => TOKEN_SHAPE.test(s);
export const hashSurfaceToken = hashSecret;
