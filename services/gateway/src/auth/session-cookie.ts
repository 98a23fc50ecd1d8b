import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * What a signed-in browser carries. The token itself is never put in the cookie: only its SHA-256 (what the
 * store indexes), so the session stops working the moment the token is revoked, and a stolen cookie never
 * yields a token usable from elsewhere.
 */
export interface Session {
  /** Random id; sign-out records it as ended. */
  id: string;
  tokenHash: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** The value every state-changing call must echo in the x-csrf-token header. */
  csrfToken: string;
}

/** The cookie was altered, signed with another key, malformed or expired: the browser must sign in again. */
export class InvalidSessionError extends Error {
  constructor(readonly reason: "malformed" | "bad-signature" | "expired") {
    super(`session cookie refused: ${reason}`);
    this.name = "InvalidSessionError";
  }
}

/**
 * Signs and checks session cookies with HMAC-SHA256. A key from config survives restarts and is shared by
 * replicas; without one, a random key per process means a restart signs everyone out, which is the safe
 * default for a single dev process.
 */
export class SessionSigner {
  private readonly key: Buffer;

  constructor(key: string | undefined) {
    this.key = key ? Buffer.from(key, "utf8") : randomBytes(32);
  }

  issue(tokenHash: string, ttlMs: number, now = Date.now()): Session {
    return {
      id: randomBytes(16).toString("base64url"),
      tokenHash,
      expiresAt: now + ttlMs,
      csrfToken: randomBytes(24).toString("base64url"),
    };
  }

  encode(session: Session): string {
    const payload = Buffer.from(
      JSON.stringify([session.id, session.tokenHash, session.expiresAt, session.csrfToken]),
    ).toString("base64url");
    return `${payload}.${this.sign(payload)}`;
  }

  decode(cookie: string, now = Date.now()): Session {
    const [payload, signature, extra] = cookie.split(".");
    if (!payload || !signature || extra !== undefined) throw new InvalidSessionError("malformed");
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new InvalidSessionError("bad-signature");
    let fields: unknown;
    try {
      fields = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
    } catch {
      throw new InvalidSessionError("malformed");
    }
    if (
      !Array.isArray(fields) ||
      fields.length !== 4 ||
      typeof fields[0] !== "string" ||
      typeof fields[1] !== "string" ||
      typeof fields[2] !== "number" ||
      typeof fields[3] !== "string"
    )
      throw new InvalidSessionError("malformed");
    const session: Session = {
      id: fields[0],
      tokenHash: fields[1],
      expiresAt: fields[2],
      csrfToken: fields[3],
    };
    if (session.expiresAt <= now) throw new InvalidSessionError("expired");
    return session;
  }

  private sign(payload: string): string {
    return createHmac("sha256", this.key).update(payload).digest("base64url");
  }
}

/** Constant-time comparison of the CSRF header with the session's value. */
export function csrfMatches(session: Session, header: string): boolean {
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(header);
  return a.length === b.length && timingSafeEqual(a, b);
}
