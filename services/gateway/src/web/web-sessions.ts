import type { Context } from "koa";
import type { Collection, Store } from "@mainline/kit/store/index";
import { PermissionDeniedError, UnauthenticatedError } from "@mainline/kit/errors/index";
import type { AuthRepository, Principal } from "../auth/auth-repository.js";
import { hashApiToken } from "../auth/api-token.js";
import { csrfMatches, InvalidSessionError, SessionSigner, type Session } from "./session-cookie.js";

export const SESSION_COOKIE = "mainline_session";
export const CSRF_HEADER = "x-csrf-token";

interface EndedSessionDocument {
  _id: string;
  /** Kept until the cookie would have expired anyway. */
  expiresAt: number;
}

export interface WebSessionOptions {
  /** GATEWAY_SESSION_KEY; a random key per process when unset. */
  key: string | undefined;
  ttlMs: number;
  now?: () => number;
}

/**
 * Browser sessions: an API token pasted once becomes a signed, expiring, HttpOnly cookie. The cookie is checked
 * on every request against the token's current state (revoking the token ends its sessions) and against the
 * sessions signed out, which are stored so that a copied cookie cannot outlive its sign-out.
 */
export class WebSessions {
  private constructor(
    private readonly auth: AuthRepository,
    private readonly ended: Collection<EndedSessionDocument>,
    private readonly signer: SessionSigner,
    readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  static open(auth: AuthRepository, store: Store, options: WebSessionOptions): WebSessions {
    return new WebSessions(
      auth,
      store.collection<EndedSessionDocument>("ended_web_sessions"),
      new SessionSigner(options.key),
      options.ttlMs,
      options.now ?? Date.now,
    );
  }

  /** Undefined when the token is not a valid API token. */
  async signIn(
    token: string,
  ): Promise<{ session: Session; cookie: string; principal: Principal } | undefined> {
    const tokenHash = hashApiToken(token);
    const principal = await this.auth.authenticateHash(tokenHash);
    if (!principal) return undefined;
    const session = this.signer.issue(tokenHash, this.ttlMs, this.now());
    return { session, cookie: this.signer.encode(session), principal };
  }

  async signOut(session: Session): Promise<void> {
    await this.ended.insertOne({ _id: session.id, expiresAt: session.expiresAt }).catch(() => undefined);
  }

  /** The session of the request's cookie, or undefined when it carries none. Throws when one is refused. */
  async sessionOf(ctx: Context): Promise<{ session: Session; principal: Principal } | undefined> {
    const cookie = ctx.cookies.get(SESSION_COOKIE);
    if (!cookie) return undefined;
    let session: Session;
    try {
      session = this.signer.decode(cookie, this.now());
    } catch (error) {
      if (error instanceof InvalidSessionError)
        throw new UnauthenticatedError("Unauthorized: the session has expired or is invalid; sign in again");
      throw error;
    }
    if (await this.ended.findOne({ _id: session.id }))
      throw new UnauthenticatedError("Unauthorized: this session was signed out; sign in again");
    const principal = await this.auth.authenticateHash(session.tokenHash);
    if (!principal)
      throw new UnauthenticatedError("Unauthorized: the session's API token was revoked; sign in again");
    return { session, principal };
  }

  /**
   * Authenticates a call by its cookie. Anything but GET and HEAD changes state or could, so it must echo the
   * session's CSRF token in a header: another site can make the browser send the cookie (SameSite=Strict
   * already stops most of that), but it cannot read the token to put it in a header.
   */
  async principalOf(ctx: Context): Promise<Principal | undefined> {
    const found = await this.sessionOf(ctx);
    if (!found) return undefined;
    if (ctx.method !== "GET" && ctx.method !== "HEAD" && !csrfMatches(found.session, ctx.get(CSRF_HEADER)))
      throw new PermissionDeniedError(
        `Forbidden: a call authenticated by the session cookie must carry the session's ${CSRF_HEADER} header`,
      );
    return found.principal;
  }

  /** Sets the cookie: Secure whenever the request came over HTTPS (directly or, with proxy trust, via a proxy). */
  setCookie(ctx: Context, value: string, expiresAt: number): void {
    ctx.cookies.set(SESSION_COOKIE, value, {
      httpOnly: true,
      sameSite: "strict",
      secure: ctx.secure,
      path: "/",
      expires: new Date(expiresAt),
      overwrite: true,
    });
  }

  clearCookie(ctx: Context): void {
    ctx.cookies.set(SESSION_COOKIE, "", {
      httpOnly: true,
      sameSite: "strict",
      secure: ctx.secure,
      path: "/",
      expires: new Date(0),
      overwrite: true,
    });
  }
}
