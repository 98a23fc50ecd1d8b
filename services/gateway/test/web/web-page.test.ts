import { expect } from "chai";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { eventually, freePort, NatsServer } from "@mainline/testing";
import { SUBJECTS } from "@mainline/kit/streams/index";
import { PullRequestEventType, PullRequestLifecycleEvent, PullRequestState } from "@mainline/proto/queue";
import { GatewayHarness } from "@mainline/harness/gateway-harness";

async function cookieFor(gw: GatewayHarness, token: string): Promise<string> {
  const response = await fetch(`${gw.origin}/ui/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  return response.headers.getSetCookie()[0]!.split(";")[0]!;
}

/** Reads server-sent events into `events` until aborted; `state.ended` once the server ended the stream. */
function listen(url: string, cookie: string) {
  const controller = new AbortController();
  const events: { event: string; data: unknown; at: number }[] = [];
  const state = { ended: false };
  const opened = fetch(url, { headers: { cookie }, signal: controller.signal }).then((response) => {
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            state.ended = true;
            return;
          }
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event && data) events.push({ event, data: JSON.parse(data), at: Date.now() });
          }
        }
      } catch {
        // aborted
      }
    })();
    return response;
  });
  return { opened, events, state, close: () => controller.abort() };
}

function prEvent(org: string, pr: number) {
  return PullRequestLifecycleEvent.encode({
    eventId: `e-${org}-${pr}`,
    type: PullRequestEventType.UNSPECIFIED,
    timestamp: new Date(),
    org,
    repository: { host: "github.com", owner: "acme", name: "widgets" },
    targetBranch: "main",
    prNumber: pr,
    status: PullRequestState.MERGED,
    previousStatus: PullRequestState.TESTING,
    batched: false,
    isBisection: false,
    testBranch: "",
    testBranchSha: "",
  }).finish();
}

describe("gateway: the web page and its live events", () => {
  let gw: GatewayHarness;
  let acme: string;
  let globex: string;

  before(async () => {
    gw = await GatewayHarness.start();
    acme = await cookieFor(gw, await gw.organization("acme"));
    globex = await cookieFor(gw, await gw.organization("globex"));
  });
  after(() => gw.stop());

  it("serves the built page under / with a strict content security policy, and its assets gzipped", async () => {
    const page = await fetch(`${gw.origin}/`);
    expect(page.status).to.equal(200);
    expect(page.headers.get("content-type")).to.match(/^text\/html/);
    expect(page.headers.get("content-security-policy")).to.include("script-src 'self'");
    const html = await page.text();
    const script = /src="(\/assets\/app-[0-9a-f]+\.js)"/.exec(html)?.[1];
    expect(script, "index.html names the bundle").to.be.a("string");
    const asset = await fetch(`${gw.origin}${script}`, { headers: { "accept-encoding": "gzip" } });
    expect(asset.status).to.equal(200);
    expect(asset.headers.get("content-encoding")).to.equal("gzip");
    expect(asset.headers.get("cache-control")).to.include("immutable");
    expect(await asset.text(), "fetch decoded the gzip body: our code").to.include("/ui/session");
  });

  it("answers a test record's html_url with the page, and leaves /v1 and unknown files alone", async () => {
    const testPage = await fetch(
      `${gw.origin}/flaky-tests/acme/github.com/acme/widgets/tests/7f1c2a4e-0000-4000-8000-000000000001`,
    );
    expect(testPage.status).to.equal(200);
    expect(await testPage.text()).to.include('<div id="app">');
    const api = await fetch(`${gw.origin}/v1/no-such-thing`);
    expect(api.status).to.equal(404);
    expect(api.headers.get("content-type")).to.match(/^text\/plain/);
    expect((await fetch(`${gw.origin}/assets/..%2Fpackage.json`)).status).to.equal(404);
    expect((await fetch(`${gw.origin}/favicon.ico`)).status).to.equal(404);
  });

  it("refuses the event stream without a session", async () => {
    expect((await fetch(`${gw.origin}/ui/events`)).status).to.equal(401);
  });

  it("streams a lifecycle event to its organisation's pages within a second, and to no other", async () => {
    const url = `${gw.origin}/ui/events?repo=github.com/acme/widgets&branch=main`;
    const mine = listen(url, acme);
    const theirs = listen(url, globex);
    try {
      for (const s of [mine, theirs]) {
        const response = await s.opened;
        expect(response.status).to.equal(200);
        expect(response.headers.get("content-type")).to.match(/^text\/event-stream/);
      }
      // Both subscriptions are registered once their first bytes arrived; give the server a moment anyway.
      await new Promise((r) => setTimeout(r, 100));
      const sent = Date.now();
      gw.nc.publish(SUBJECTS.pullRequestEvent, prEvent("acme", 7));
      const deadline = Date.now() + 1_000;
      while (mine.events.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(mine.events.map((e) => e.data)).to.deep.equal([
        { org: "acme", repo: "github.com/acme/widgets", branch: "main", kind: "pull-request", pr: 7 },
      ]);
      expect(mine.events[0]!.at - sent).to.be.below(1_000);
      await new Promise((r) => setTimeout(r, 200));
      expect(theirs.events, "globex's page hears nothing of acme's").to.deep.equal([]);
    } finally {
      mine.close();
      theirs.close();
    }
  });
});

describe("gateway: an open event stream ends with its session", () => {
  let gw: GatewayHarness;
  const url = () => `${gw.origin}/ui/events?repo=github.com/acme/widgets&branch=main`;

  before(async () => {
    gw = await GatewayHarness.start({}, { sessionRecheckMs: 200 });
    await gw.organization("acme");
  });
  after(() => gw.stop());

  async function signIn(token: string) {
    const response = await fetch(`${gw.origin}/ui/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token }),
    });
    const { csrfToken } = (await response.json()) as { csrfToken: string };
    return { cookie: response.headers.getSetCookie()[0]!.split(";")[0]!, csrfToken };
  }

  it("ends at once when the session signs out, and a reconnect is refused", async () => {
    const { token } = await gw.auth.createToken("acme", "signs out", false);
    const s = await signIn(token);
    const page = listen(url(), s.cookie);
    // Another page of another session of the same token keeps its stream.
    const other = listen(url(), (await signIn(token)).cookie);
    try {
      expect((await page.opened).status).to.equal(200);
      expect((await other.opened).status).to.equal(200);
      const out = await fetch(`${gw.origin}/ui/session`, {
        method: "DELETE",
        headers: { cookie: s.cookie, "x-csrf-token": s.csrfToken },
      });
      expect(out.status).to.equal(204);
      await eventually(() => expect(page.state.ended, "the stream ended").to.equal(true), 1_000);
      expect(page.events.map((e) => [e.event, e.data])).to.deep.equal([["ended", { reason: "signed out" }]]);
      expect((await fetch(url(), { headers: { cookie: s.cookie } })).status).to.equal(401);
      await new Promise((r) => setTimeout(r, 400));
      expect(other.state.ended, "the other session's stream stays open").to.equal(false);
      gw.nc.publish(SUBJECTS.pullRequestEvent, prEvent("acme", 8));
      await eventually(() => expect(other.events.map((e) => e.event)).to.deep.equal(["change"]), 1_000);
    } finally {
      page.close();
      other.close();
    }
  });

  it("ends within its re-check when the session's token is revoked", async () => {
    const { token, summary } = await gw.auth.createToken("acme", "revoked while open", false);
    const s = await signIn(token);
    const page = listen(url(), s.cookie);
    try {
      expect((await page.opened).status).to.equal(200);
      await gw.auth.revokeToken("acme", summary.id);
      await eventually(() => expect(page.state.ended, "the stream ended").to.equal(true), 2_000);
      expect(page.events.map((e) => [e.event, e.data])).to.deep.equal([["ended", { reason: "revoked" }]]);
      // Nothing more reaches it: the stream is gone, and no listener is left behind.
      gw.nc.publish(SUBJECTS.pullRequestEvent, prEvent("acme", 9));
      await new Promise((r) => setTimeout(r, 200));
      expect(page.events).to.have.length(1);
    } finally {
      page.close();
    }
  });
});

describe("gateway: the live events after the gateway's NATS connection was lost", function () {
  this.timeout(60_000);
  let nats: NatsServer;
  let gw: GatewayHarness;
  let store: string;
  const users = [{ user: "mainline", password: "resync-test-password" }];

  before(async () => {
    store = await mkdtemp(path.join(tmpdir(), "mainline-resync-"));
    nats = await NatsServer.start({ port: await freePort(), storeDir: store, keepStore: true, users });
    gw = await GatewayHarness.start({}, { nats });
  });
  after(async () => {
    await gw?.stop();
    await nats?.stop();
    await rm(store, { recursive: true, force: true });
  });

  it("tells every open page to re-read once the connection is back: what was published meanwhile was missed", async () => {
    const cookie = await cookieFor(gw, await gw.organization("acme"));
    const page = listen(`${gw.origin}/ui/events?repo=github.com/acme/widgets&branch=main`, cookie);
    try {
      expect((await page.opened).status).to.equal(200);
      const port = nats.port;
      await nats.stop("SIGKILL");
      nats = await NatsServer.start({ port, storeDir: store, keepStore: true, users });
      await eventually(
        () =>
          expect(page.events.map((e) => e.data)).to.deep.equal([{ org: "acme", repo: "", kind: "resync" }]),
        20_000,
      );
    } finally {
      page.close();
    }
  });
});
