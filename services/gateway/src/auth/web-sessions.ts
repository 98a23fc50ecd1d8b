import type { Context } from "koa";
import type { Collection, Store } from "@mainline/kit/store/index";
import { PermissionDeniedError, UnauthenticatedError } from "@mainline/kit/errors/index";
import type { AuthRepository } from "./auth-repository.js";
import type { Principal } from "./principal.js";
import { hashApiToken } from "./api-token.js";
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
  /**
   * How often an open event stream checks that its session still stands (its token not revoked, not signed out
   * on another replica); a sign-out on this replica ends its streams at once.
   */
  recheckMs?: number;
  now?: () => number;
}

const DEFAULT_RECHECK_MS = 5_000;

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
    private readonly recheckMs: number,
  ) {}

  /** The watchers of each session signed in here (its open event streams), told when it is signed out. */
  private readonly watchers = new Map<string, Set<(reason: string) => void>>();

  static open(auth: AuthRepository, store: Store, options: WebSessionOptions): WebSessions {
    return new WebSessions(
      auth,
      store.collection<EndedSessionDocument>("ended_web_sessions"),
      new SessionSigner(options.key),
      options.ttlMs,
      options.now ?? Date.now,
      options.recheckMs ?? DEFAULT_RECHECK_MS,
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
    for (const ended of [...(this.watchers.get(session.id) ?? [])]) ended("signed out");
  }

  /**
   * Calls `ended` once when the session ends while something holds it open (an event stream): at once when it is
   * signed out on this replica, within `recheckMs` when its token is revoked or it is signed out on another
   * replica, and when it expires. Returns the function that stops watching.
   */
  watch(session: Session, ended: (reason: string) => void): () => void {
    let done = false;
    const finish = (reason: string) => {
      if (done) return;
      stop();
      ended(reason);
    };
    const set = this.watchers.get(session.id) ?? new Set();
    set.add(finish);
    this.watchers.set(session.id, set);
    const recheck = setInterval(() => {
      this.refusal(session).then(
        (reason) => reason && finish(reason),
        // The store or the auth lookup failing is no answer: check again next time.
        () => undefined,
      );
    }, this.recheckMs);
    recheck.unref();
    const expiry = setTimeout(() => finish("expired"), Math.max(0, session.expiresAt - this.now()));
    expiry.unref();
    const stop = () => {
      done = true;
      clearInterval(recheck);
      clearTimeout(expiry);
      set.delete(finish);
      if (set.size === 0 && this.watchers.get(session.id) === set) this.watchers.delete(session.id);
    };
    return stop;
  }

  /** Why a decoded session no longer stands, or undefined while it does. */
  private async refusal(session: Session): Promise<string | undefined> {
    if (await this.ended.findOne({ _id: session.id })) return "signed out";
    if (!(await this.auth.authenticateHash(session.tokenHash))) return "revoked";
    return undefined;
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
