import { expect } from "chai";
import { createRequire } from "node:module";
import { sign } from "@octokit/webhooks-methods";
import type { IssueCommentCreatedEvent, PullRequestOpenedEvent } from "@octokit/webhooks-types";
import { GatewayHarness } from "@mainline/harness/gateway-harness";
import { CoordinatorHarness } from "@mainline/harness/coordinator-harness";

// Real payloads as GitHub sends them (the community's examples), not shapes we made up.
const examples = createRequire(import.meta.url)("@octokit/webhooks-examples") as {
  name: string;
  examples: { action?: string }[];
}[];
const exampleOf = <T>(name: string, action: string): T => {
  const found = examples.find((d) => d.name === name)?.examples.find((e) => e.action === action);
  if (!found) throw new Error(`no ${name}.${action} example in @octokit/webhooks-examples`);
  return structuredClone(found) as T;
};

const SECRET = "It's a Secret to Everybody";
const openedExample = exampleOf<PullRequestOpenedEvent>("pull_request", "opened");
const commentExample = exampleOf<IssueCommentCreatedEvent>("issue_comment", "created");
const repoOf = (e: { repository: { name: string; owner: { login: string } } }) => ({
  host: "github.com",
  owner: e.repository.owner.login,
  name: e.repository.name,
});
const repo = repoOf(openedExample);
const PR = openedExample.number;
const BASE = openedExample.pull_request.base.ref;

/** The example comment, turned into a comment on pull request `number` the way GitHub marks those. */
function prComment(body: string, number = PR, changes: Partial<{ action: string }> = {}) {
  const event = structuredClone(commentExample) as unknown as Record<string, unknown> & {
    issue: Record<string, unknown>;
    comment: Record<string, unknown>;
  };
  const url = `https://api.github.com/repos/${repo.owner}/${repo.name}/pulls/${number}`;
  event.issue.number = number;
  event.issue.pull_request = {
    url,
    html_url: `https://github.com/${repo.owner}/${repo.name}/pull/${number}`,
    diff_url: `https://github.com/${repo.owner}/${repo.name}/pull/${number}.diff`,
    patch_url: `https://github.com/${repo.owner}/${repo.name}/pull/${number}.patch`,
    merged_at: null,
  };
  event.comment.body = body;
  return { ...event, ...changes };
}

function prEvent(number: number, baseRef: string, action = "opened", state = "open") {
  const event = structuredClone(openedExample) as unknown as Record<string, unknown> & {
    pull_request: Record<string, unknown> & { base: Record<string, unknown>; head: Record<string, unknown> };
  };
  event.action = action;
  event.number = number;
  event.pull_request.number = number;
  event.pull_request.state = state;
  event.pull_request.base.ref = baseRef;
  event.pull_request.head.ref = `feature-${number}`;
  return event;
}

interface CommentAnswer {
  outcome: "ignored" | "applied" | "refused";
  reason?: string;
  command?: string;
  reply?: string;
}

describe("code-host events: signatures, pull_request facts and /svc comment commands", function () {
  this.timeout(30_000);
  let coordinator: CoordinatorHarness;
  let signed: GatewayHarness;
  let unsigned: GatewayHarness;
  let token: string;
  let unsignedToken: string;
  let rivalToken: string;

  /** Posts an event to the gateway that requires signatures, signed with `secret` unless told otherwise. */
  const send = async (path: string, event: unknown, options: { secret?: string | null; t?: string } = {}) => {
    const body = JSON.stringify(event);
    const secret = options.secret === undefined ? SECRET : options.secret;
    const headers: Record<string, string> = secret ? { "x-hub-signature-256": await sign(secret, body) } : {};
    return signed.post(path, body, options.t ?? token, headers);
  };
  const comment = async (body: string, number = PR, t?: string) => {
    const response = await send("/code-host/comment-events", prComment(body, number), t ? { t } : {});
    expect(response.status, await response.clone().text()).to.equal(200);
    return (await response.json()) as CommentAnswer;
  };
  const queue = { repo, targetBranch: BASE };
  const submitted = async (number = PR) => {
    const response = await signed.post("/getSubmittedPullRequest", { ...queue, pr: { number } }, token);
    return {
      status: response.status,
      body: (await response.json().catch(() => ({}))) as Record<string, unknown>,
    };
  };

  before(async () => {
    coordinator = await CoordinatorHarness.start();
    signed = await GatewayHarness.start({ queue: coordinator.address }, { webhookSecret: SECRET });
    unsigned = await GatewayHarness.start({ queue: coordinator.address });
    token = await signed.organization("acme");
    rivalToken = await signed.organization("rival");
    unsignedToken = await unsigned.organization("plain");
    expect((await signed.post("/createQueue", queue, token)).status).to.equal(200);
  });
  after(async () => {
    await signed?.stop();
    await unsigned?.stop();
    await coordinator?.stop();
    await coordinator?.nats.stop();
  });

  describe("X-Hub-Signature-256", () => {
    for (const path of ["/code-host/pull-request-events", "/code-host/comment-events"]) {
      const event = () => (path.includes("pull-request") ? openedExample : prComment("thanks"));

      it(`${path}: accepts an event signed with the configured secret`, async () => {
        expect((await send(path, event())).status).to.equal(200);
      });

      it(`${path}: answers 401 in plain text when the signature is missing`, async () => {
        const response = await send(path, event(), { secret: null });
        expect(response.status).to.equal(401);
        expect(response.headers.get("content-type")).to.match(/^application\/plain-text/);
        expect(await response.text()).to.equal(
          "Unauthorized: the X-Hub-Signature-256 header is missing; this gateway requires signed code-host events",
        );
      });

      it(`${path}: answers 401 when signed with another secret`, async () => {
        const response = await send(path, event(), { secret: "not the secret" });
        expect(response.status).to.equal(401);
        expect(await response.text()).to.match(/signature does not match the body/);
      });

      it(`${path}: answers 401 when the body was changed after signing`, async () => {
        const body = JSON.stringify(event());
        const signature = await sign(SECRET, body);
        const tampered = body.replace(`"${repo.owner}"`, `"${repo.owner}x"`);
        expect(tampered).to.not.equal(body);
        const response = await signed.post(path, tampered, token, { "x-hub-signature-256": signature });
        expect(response.status).to.equal(401);
      });

      it(`${path}: still needs the API token when signed`, async () => {
        const body = JSON.stringify(event());
        const response = await signed.post(path, body, undefined, {
          "x-hub-signature-256": await sign(SECRET, body),
        });
        expect(response.status).to.equal(401);
        expect(await response.text()).to.match(/x-api-token/);
      });

      it(`${path}: accepts unsigned events when no secret is configured`, async () => {
        expect((await unsigned.post(path, event(), unsignedToken)).status).to.equal(200);
      });
    }
  });

  describe("pull_request events (real example payloads)", () => {
    it("records the facts of an opened pull request", async () => {
      const response = await send("/code-host/pull-request-events", openedExample);
      expect(await response.json()).to.deep.equal({ outcome: "recorded" });
    });

    it("acknowledges and ignores every other action of the examples (labeled, assigned, ...)", async () => {
      const others = examples
        .find((d) => d.name === "pull_request")!
        .examples.filter(
          (e) => !["opened", "synchronize", "closed", "reopened", "edited"].includes(e.action ?? ""),
        );
      expect(others.length).to.be.greaterThan(5);
      for (const event of others) {
        const response = await send("/code-host/pull-request-events", event);
        expect(response.status, event.action).to.equal(200);
        expect(await response.json(), event.action).to.deep.include({ outcome: "ignored" });
      }
    });

    it("answers 400 naming the field for a payload without a pull request number", async () => {
      const { number: _dropped, ...rest } = openedExample;
      const response = await send("/code-host/pull-request-events", rest);
      expect(response.status).to.equal(400);
      expect(await response.text()).to.match(/^number: is required/);
    });
  });

  describe("comment commands", () => {
    it("ignores a comment on an issue (the example as GitHub sends it)", async () => {
      const response = await send("/code-host/comment-events", {
        ...commentExample,
        comment: { ...commentExample.comment, body: "/svc merge" },
      });
      expect(await response.json()).to.deep.equal({
        outcome: "ignored",
        reason: "the comment is on an issue, not on a pull request",
      });
      expect((await submitted()).status, "nothing was submitted").to.equal(404);
    });

    it("ignores a pull-request comment without a command", async () => {
      expect(await comment("You are totally right! I'll get this fixed right away.")).to.deep.equal({
        outcome: "ignored",
        reason: "the comment holds no /svc command",
      });
    });

    it("ignores an edited comment, so editing never merges twice", async () => {
      const response = await send(
        "/code-host/comment-events",
        prComment("/svc merge", PR, { action: "edited" }),
      );
      expect(await response.json()).to.deep.include({ outcome: "ignored" });
      expect((await submitted()).status).to.equal(404);
    });

    it("answers an unknown flag with a reply and changes nothing", async () => {
      const answer = await comment("/svc merge --fast");
      expect(answer.outcome).to.equal("refused");
      expect(answer.reply).to.match(/^Unknown flag `--fast` for `\/svc merge`/);
      expect(answer.reply).to.contain("--no-batch");
      expect((await submitted()).status).to.equal(404);
    });

    it("answers a bad priority with a reply naming the valid levels", async () => {
      const answer = await comment("/svc merge --priority=sometimes");
      expect(answer).to.deep.include({ outcome: "refused" });
      expect(answer.reply).to.contain("urgent, high, medium, low, or an integer from 0 to 255");
    });

    it("refuses commands of a commenter GitHub says is not an owner, member or collaborator, and says why", async () => {
      for (const association of ["NONE", "CONTRIBUTOR", "FIRST_TIME_CONTRIBUTOR"]) {
        const event = prComment("/svc merge");
        event.comment.author_association = association;
        const response = await send("/code-host/comment-events", event);
        const answer = (await response.json()) as { outcome: string; reply?: string };
        expect(answer, association).to.deep.include({ outcome: "refused", command: "merge" });
        expect(answer.reply).to.match(
          /only the repository's owners, members of its organisation and its collaborators can run `\/svc` commands/,
        );
      }
      expect((await submitted()).status).to.equal(404);
    });

    it("/svc merge --priority=high submits the PR to the queue of its base branch", async () => {
      const answer = await comment("LGTM, shipping it.\n\n/svc merge --priority=high");
      expect(answer).to.deep.equal({
        outcome: "applied",
        command: "merge",
        reply: `#${PR} joined the merge queue of \`${BASE}\` (priority high).`,
      });
      const pr = await submitted();
      expect(pr.body).to.include({
        isCurrentlySubmittedToQueue: true,
        priorityName: "high",
        priorityValue: 10,
      });
      expect(pr.body.prBaseBranch).to.equal(BASE);
    });

    it("answers a second /svc merge with a reply saying it is already queued", async () => {
      const answer = await comment("/svc merge");
      expect(answer.outcome).to.equal("refused");
      expect(answer.reply).to.match(/already in the queue/);
    });

    it("/svc cancel removes the PR from the queue", async () => {
      expect(await comment("/svc cancel")).to.deep.equal({
        outcome: "applied",
        command: "cancel",
        reply: `#${PR} was removed from the merge queue of \`${BASE}\`.`,
      });
      expect((await submitted()).body).to.include({ state: "CANCELLED", isCurrentlySubmittedToQueue: false });
    });

    it("answers /svc cancel of a PR not in the queue with a reply", async () => {
      const answer = await comment("/svc cancel");
      expect(answer).to.deep.include({ outcome: "refused", command: "cancel" });
      expect(answer.reply).to.match(/is not in the queue/);
    });

    it("/svc merge --no-batch submits the PR to be tested on its own", async () => {
      const answer = await comment("/svc merge --no-batch");
      expect(answer.reply).to.equal(
        `#${PR} joined the merge queue of \`${BASE}\` (priority medium; tested on its own, not in a batch).`,
      );
      const response = await signed.post("/getQueue", queue, token);
      const enqueued = ((await response.json()) as { enqueuedPullRequests: Record<string, unknown>[] })
        .enqueuedPullRequests;
      expect(enqueued.find((p) => p.prNumber === PR)).to.include({ noBatch: true });
    });

    it("answers a command on a PR it has no pull_request event for", async () => {
      const answer = await comment("/svc merge", 4242);
      expect(answer.outcome).to.equal("refused");
      expect(answer.reply).to.match(/^Mainline has not received a pull_request event for #4242 yet/);
    });

    it("answers a command on a PR whose base branch has no queue", async () => {
      await send("/code-host/pull-request-events", prEvent(7, "release"));
      const answer = await comment("/svc merge", 7);
      expect(answer.outcome).to.equal("refused");
      expect(answer.reply).to.match(/no queue for branch release/);
    });

    it("answers /svc merge on a closed PR", async () => {
      await send("/code-host/pull-request-events", prEvent(8, BASE, "closed", "closed"));
      const answer = await comment("/svc merge", 8);
      expect(answer).to.deep.include({ outcome: "refused" });
      expect(answer.reply).to.equal("#8 is closed; only open pull requests can join the merge queue.");
    });

    it("answers every command when the queue has comment commands turned off", async () => {
      await send("/code-host/pull-request-events", prEvent(9, BASE));
      expect(
        (await signed.post("/updateQueue", { ...queue, commandsEnabled: false }, token)).status,
      ).to.equal(200);
      try {
        const answer = await comment("/svc merge", 9);
        expect(answer.reply).to.equal(`Comment commands are turned off for the merge queue of \`${BASE}\`.`);
        expect((await submitted(9)).status).to.equal(404);
      } finally {
        await signed.post("/updateQueue", { ...queue, commandsEnabled: true }, token);
      }
    });

    it("never acts on another organisation's pull request", async () => {
      // rival has no facts for the PR (facts are per organisation), so its command cannot reach acme's queue.
      const answer = await comment("/svc cancel", PR, rivalToken);
      expect(answer.outcome).to.equal("refused");
      expect((await submitted()).body).to.include({ isCurrentlySubmittedToQueue: true });
    });

    it("answers 400 naming the field for a payload without the comment", async () => {
      const { comment: _dropped, ...rest } = prComment("/svc merge");
      const response = await send("/code-host/comment-events", rest);
      expect(response.status).to.equal(400);
      expect(await response.text()).to.match(/^comment: is required/);
    });
  });
});
