import { hash, randomBytes } from "node:crypto";

/**
 * API tokens look like `mlt_<id>_<secret>`. Only the SHA-256 of the whole token is stored: tokens are 192 bits
 * of randomness, so a fast hash is as safe as a slow one here, and it keeps authentication to one index lookup.
 * The id is kept in clear so a token can be listed and revoked without ever showing it again.
 */
export interface NewApiToken {
  id: string;
  token: string;
  hash: string;
}

export function generateApiToken(): NewApiToken {
  const id = randomBytes(6).toString("hex");
  const token = `mlt_${id}_${randomBytes(24).toString("base64url")}`;
  return { id, token, hash: hashApiToken(token) };
}

export function hashApiToken(token: string): string {
  // The one-shot form: every request hashes its token, and a Hash object per call costs several times more.
  return hash("sha256", token, "hex");
}

/** The id part of a token in our format; a foreign token (e.g. a seeded dev token) gets an id from its hash. */
export function apiTokenId(token: string): string {
  const match = /^mlt_([0-9a-f]{12})_/.exec(token);
  return match?.[1] ?? hashApiToken(token).slice(0, 12);
}
