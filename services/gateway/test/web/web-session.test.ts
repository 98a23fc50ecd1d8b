import { expect } from "chai";
import { setTimeout as sleep } from "node:timers/promises";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

interface SignedIn {
  cookie: string;
  setCookie: string;
  csrfToken: string;
  org: string;
}

async function signIn(
  gw: GatewayHarness,
  token: string,
  headers: Record<string, string> = {},
): Promise<SignedIn> {
  const response = await fetch(`${gw.origin}/ui/session`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ token }),
  });
  expect(response.status, await response.clone().text()).to.equal(200);
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("mainline_session="))!;
  const body = (await response.json()) as { csrfToken: string; org: string };
  return { cookie: setCookie.split(";")[0]!, setCookie, csrfToken: body.csrfToken, org: body.org };
}

/** An API call made the way the page makes it: the cookie, and the CSRF header unless told otherwise. */
function asPage(
  gw: GatewayHarness,
  s: SignedIn,
  method: string,
  path: string,
  body?: unknown,
  csrf = s.csrfToken,
) {
  return gw.fetch(`${gw.url}${path}`, {
    method,
    headers: {
      cookie: s.cookie,
      ...(csrf ? { "x-csrf-token": csrf } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

describe("gateway: web sign-in, session cookie and CSRF", () => {
  let gw: GatewayHarness;
  let adminOfAcme: string;

  before(async () => {
    gw = await GatewayHarness.start({}, { sessionTtlMs: 60_000, trustProxy: true });
    await gw.auth.createOrganization("acme", "Acme");
    await gw.auth.createOrganization("globex", "Globex");
    adminOfAcme = (await gw.auth.createToken("acme", "web admin", true)).token;
  });
  after(() => gw.stop());

  it("answers a valid token with an HttpOnly, SameSite=Strict, expiring cookie that holds no token", async () => {
    const s = await signIn(gw, adminOfAcme);
    expect(s.org).to.equal("acme");
    expect(s.setCookie)
      .to.match(/; httponly/i)
      .and.match(/; samesite=strict/i)
      .and.match(/; path=\//i);
    const expires = Date.parse(/expires=([^;]+)/i.exec(s.setCookie)![1]!);
    expect(expires - Date.now()).to.be.within(50_000, 61_000);
    expect(s.setCookie, "plain HTTP: not Secure").to.not.match(/; secure/i);
    expect(s.cookie).to.not.include(adminOfAcme.slice(4));
  });

  it("marks the cookie Secure when the browser came over HTTPS (through a trusted proxy)", async () => {
    const s = await signIn(gw, adminOfAcme, { "x-forwarded-proto": "https" });
    expect(s.setCookie).to.match(/; secure/i);
  });

  it("refuses a missing or unknown token, naming the field", async () => {
    const missing = await fetch(`${gw.origin}/ui/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(missing.status).to.equal(400);
    expect(await missing.text()).to.match(/^token: is required/);
    const unknown = await fetch(`${gw.origin}/ui/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: "mlt_000000000000_nope" }),
    });
    expect(unknown.status).to.equal(401);
    expect(unknown.headers.getSetCookie()).to.deep.equal([]);
  });

  it("authenticates the API by cookie: reads without CSRF, changes only with the session's CSRF header", async () => {
    const s = await signIn(gw, adminOfAcme);
    const read = await asPage(gw, s, "GET", "/admin/tokens", undefined, "");
    expect(read.status).to.equal(200);
    const newToken = { org: "acme", description: "made from the page" };
    const noCsrf = await asPage(gw, s, "POST", "/admin/tokens", newToken, "");
    expect(noCsrf.status).to.equal(403);
    expect(await noCsrf.text()).to.match(/x-csrf-token/);
    const other = await signIn(gw, adminOfAcme);
    const wrongCsrf = await asPage(gw, s, "POST", "/admin/tokens", newToken, other.csrfToken);
    expect(wrongCsrf.status, "another session's CSRF token").to.equal(403);
    const before = ((await (await asPage(gw, s, "GET", "/admin/tokens")).json()) as { tokens: unknown[] })
      .tokens;
    const made = await asPage(gw, s, "POST", "/admin/tokens", newToken);
    expect(made.status).to.be.within(200, 201);
    const after = ((await (await asPage(gw, s, "GET", "/admin/tokens")).json()) as { tokens: unknown[] })
      .tokens;
    expect(after.length, "only the call with the CSRF header made a token").to.equal(before.length + 1);
  });

  it("refuses an altered cookie", async () => {
    const s = await signIn(gw, adminOfAcme);
    const [payload, signature] = s.cookie.slice("mainline_session=".length).split(".");
    const altered = { ...s, cookie: `mainline_session=${payload}A.${signature}` };
    expect((await asPage(gw, altered, "GET", "/admin/tokens")).status).to.equal(401);
  });

  it("signs out: the cookie is cleared, and the same cookie replayed is refused", async () => {
    const s = await signIn(gw, adminOfAcme);
    const noCsrf = await fetch(`${gw.origin}/ui/session`, {
      method: "DELETE",
      headers: { cookie: s.cookie },
    });
    expect(noCsrf.status).to.equal(403);
    const out = await fetch(`${gw.origin}/ui/session`, {
      method: "DELETE",
      headers: { cookie: s.cookie, "x-csrf-token": s.csrfToken },
    });
    expect(out.status).to.equal(204);
    expect(out.headers.getSetCookie()[0])
      .to.match(/^mainline_session=;/)
      .and.match(/expires=Thu, 01 Jan 1970/i);
    expect((await asPage(gw, s, "GET", "/admin/tokens")).status).to.equal(401);
    const who = await fetch(`${gw.origin}/ui/session`, { headers: { cookie: s.cookie } });
    expect(who.status).to.equal(401);
    expect(await who.text()).to.match(/signed out/);
  });

  it("ends the session when its token is revoked", async () => {
    const { token, summary } = await gw.auth.createToken("acme", "short-lived", false);
    const s = await signIn(gw, token);
    expect((await fetch(`${gw.origin}/ui/session`, { headers: { cookie: s.cookie } })).status).to.equal(200);
    await gw.auth.revokeToken("acme", summary.id);
    const who = await fetch(`${gw.origin}/ui/session`, { headers: { cookie: s.cookie } });
    expect(who.status).to.equal(401);
    expect(await who.text()).to.match(/revoked/);
  });

  it("scopes a session to its token's organisation", async () => {
    const globex = await signIn(gw, (await gw.auth.createToken("globex", "g", false)).token);
    expect(globex.org).to.equal("globex");
    const own = (await (await asPage(gw, globex, "GET", "/admin/tokens")).json()) as {
      tokens: { org: string }[];
    };
    expect(own.tokens.map((t) => t.org)).to.deep.equal(["globex"]);
    expect((await asPage(gw, globex, "GET", "/admin/tokens?org=acme")).status).to.equal(403);
  });
});

describe("gateway: web sessions expire", () => {
  let gw: GatewayHarness;
  before(async () => {
    gw = await GatewayHarness.start({}, { sessionTtlMs: 1_000 });
  });
  after(() => gw.stop());

  it("refuses the cookie once its time is up", async () => {
    const s = await signIn(gw, await gw.organization("acme"));
    expect((await fetch(`${gw.origin}/ui/session`, { headers: { cookie: s.cookie } })).status).to.equal(200);
    await sleep(1_100);
    const late = await fetch(`${gw.origin}/ui/session`, { headers: { cookie: s.cookie } });
    expect(late.status).to.equal(401);
    expect(await late.text()).to.match(/expired/);
  });
});
