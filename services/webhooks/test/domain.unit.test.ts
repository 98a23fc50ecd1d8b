import { expect } from "chai";
import { Webhook } from "standardwebhooks";
import { TestStatus } from "@mainline/proto/flaky";
import { PullRequestEventType, PullRequestState } from "@mainline/proto/queue";
import { AddressAllowList, classifyAddress } from "../src/domain/address-rules.js";
import {
  DEFAULT_RETRY_DELAYS_MS,
  delayAfterFailure,
  maxAttempts,
  minimumRetrySpanMs,
  retrySchedule,
} from "../src/domain/retry-schedule.js";
import { generateSecret, secretKey, signedHeaders, webhookIdOf } from "../src/domain/signing.js";
import { pullRequestWebhookEvent, testStatusWebhookEvent } from "../src/domain/webhook-event.js";

describe("webhooks domain", () => {
  describe("signing", () => {
    it("produces signatures the standardwebhooks library accepts", () => {
      const secret = generateSecret();
      const body = JSON.stringify({ type: "pull_request.merged", pr_number: 3 });
      const headers = signedHeaders(secret, "msg_1", new Date(), body);
      expect(new Webhook(secret).verify(body, { ...headers })).to.deep.equal(JSON.parse(body));
    });
    it("fails verification for a changed body or another secret", () => {
      const secret = generateSecret();
      const headers = { ...signedHeaders(secret, "msg_1", new Date(), '{"a":1}') };
      expect(() => new Webhook(secret).verify('{"a":2}', headers)).to.throw();
      expect(() => new Webhook(generateSecret()).verify('{"a":1}', headers)).to.throw();
    });
    it("derives one webhook-id per event and subscription", () => {
      expect(webhookIdOf("whs_a", "e1")).to.equal(webhookIdOf("whs_a", "e1"));
      expect(webhookIdOf("whs_a", "e1")).not.to.equal(webhookIdOf("whs_b", "e1"));
      expect(webhookIdOf("whs_a", "e1")).not.to.equal(webhookIdOf("whs_a", "e2"));
    });
    for (const [bad, rule] of [
      ["secret", /must start with whsec_/],
      ["whsec_not base64!", /standard base64/],
      ["whsec_c2hvcnQ=", /24 to 64 bytes/],
    ] as const) {
      it(`refuses the secret ${JSON.stringify(bad)}`, () => {
        expect(() => secretKey(bad)).to.throw(rule);
      });
    }
  });

  describe("retry schedule", () => {
    it("retries for at least 24 hours by default, even with the least jitter", () => {
      const schedule = retrySchedule(DEFAULT_RETRY_DELAYS_MS);
      expect(minimumRetrySpanMs(schedule)).to.be.at.least(24 * 3_600_000);
      let total = 0;
      for (let attempt = 1; attempt < maxAttempts(schedule); attempt++)
        total += delayAfterFailure(schedule, attempt, 0) ?? 0;
      expect(total).to.be.at.least(24 * 3_600_000);
    });
    it("stretches each wait by the jitter and is exhausted after the last delay", () => {
      const schedule = retrySchedule([1000, 4000], 0.5);
      expect(delayAfterFailure(schedule, 1, 0)).to.equal(1000);
      expect(delayAfterFailure(schedule, 1, 0.999)).to.be.within(1000, 1500);
      expect(delayAfterFailure(schedule, 2, 0.5)).to.equal(5000);
      expect(delayAfterFailure(schedule, 3, 0.5)).to.equal(undefined);
      expect(maxAttempts(schedule)).to.equal(3);
    });
    it("refuses non-positive delays and jitter outside 0..1", () => {
      expect(() => retrySchedule([0])).to.throw(/delaysMs/);
      expect(() => retrySchedule([10], 2)).to.throw(/jitter/);
    });
  });

  describe("address rules", () => {
    // One address in every entry of the IANA IPv4 and IPv6 special-purpose address registries, plus the
    // IPv6 forms that carry an IPv4 address; only entries the registries mark globally reachable are public.
    const cases: [string, string][] = [
      ["8.8.8.8", "public"],
      ["2001:4860:4860::8888", "public"],
      ["172.32.0.1", "public"],
      // IPv4 special-purpose registry
      ["0.0.0.0", "unspecified"],
      ["0.1.2.3", "unspecified"],
      ["10.0.0.1", "private"],
      ["100.64.0.1", "private"],
      ["127.0.0.1", "loopback"],
      ["169.254.169.254", "link-local"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.0.0.1", "reserved"],
      ["192.0.0.8", "reserved"],
      ["192.0.0.170", "reserved"],
      ["192.0.2.1", "reserved"],
      ["192.31.196.1", "public"],
      ["192.52.193.1", "public"],
      ["192.88.99.1", "reserved"],
      ["192.168.1.1", "private"],
      ["192.175.48.1", "public"],
      ["198.18.0.1", "reserved"],
      ["198.19.255.255", "reserved"],
      ["198.51.100.1", "reserved"],
      ["203.0.113.1", "reserved"],
      ["224.0.0.1", "reserved"],
      ["240.0.0.1", "reserved"],
      ["255.255.255.255", "reserved"],
      // IPv6 special-purpose registry
      ["::1", "loopback"],
      ["::", "unspecified"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["::ffff:8.8.8.8", "public"],
      ["64:ff9b::a00:1", "private"],
      ["64:ff9b::808:808", "public"],
      ["64:ff9b:1::1", "private"],
      ["100::1", "reserved"],
      ["100:0:0:1::1", "reserved"],
      ["2001:1::1", "reserved"],
      ["2001:2::1", "reserved"],
      ["2001:3::1", "public"],
      ["2001:4:112::1", "public"],
      ["2001:10::1", "reserved"],
      ["2001:20::1", "public"],
      ["2001:30::1", "public"],
      ["2001:db8::1", "reserved"],
      ["2620:4f:8000::1", "public"],
      ["3fff::1", "reserved"],
      ["5f00::1", "reserved"],
      ["fc00::1", "private"],
      ["fd12::1", "private"],
      ["fe80::1", "link-local"],
      ["fec0::1", "private"],
      ["ff02::1", "reserved"],
      // IPv6 addresses that carry an IPv4 address are judged by it
      ["2002:a00:1::1", "private"],
      ["2002:7f00:1::1", "loopback"],
      ["2002:808:808::1", "public"],
      ["::169.254.169.254", "link-local"],
      ["::127.0.0.1", "loopback"],
      ["::a00:1", "private"],
      ["::ffff:0:a00:1", "private"],
      // Teredo: the client address is stored inverted (f5ff:fffe is 10.0.0.1).
      ["2001:0:4136:e378:8000:63bf:f5ff:fffe", "private"],
      ["2001:0:4136:e378:8000:63bf:f7f7:f7f7", "public"],
    ];
    for (const [address, expected] of cases) {
      it(`classifies ${address} as ${expected}`, () => expect(classifyAddress(address)).to.equal(expected));
    }
    it("permits loopback only when allowed, and CIDRs from the allow-list", () => {
      const strict = new AddressAllowList({ allowLoopback: false, allowedCidrs: [] });
      const loose = new AddressAllowList({ allowLoopback: true, allowedCidrs: ["192.168.7.0/24"] });
      expect(strict.refusal("127.0.0.1")).to.match(/loopback/);
      expect(loose.refusal("127.0.0.1")).to.equal(undefined);
      expect(loose.refusal("::1")).to.equal(undefined);
      expect(loose.refusal("192.168.7.9")).to.equal(undefined);
      expect(loose.refusal("192.168.8.9")).to.match(/private/);
      expect(loose.refusal("169.254.169.254")).to.match(/link-local/);
      // An allowed range admits the IPv4 address an IPv6 form carries; loopback in any form follows the setting.
      expect(loose.refusal("2002:c0a8:709::1")).to.equal(undefined);
      expect(loose.refusal("::127.0.0.1")).to.equal(undefined);
      expect(strict.refusal("::127.0.0.1")).to.match(/loopback/);
      expect(strict.refusal("64:ff9b::a00:1")).to.match(/^64:ff9b::a00:1 is a private address/);
    });
  });

  describe("event payloads", () => {
    it("writes PR states UPPERCASE and leaves out reasons that do not apply", () => {
      const event = pullRequestWebhookEvent({
        eventId: "e1",
        type: PullRequestEventType.CANCELED,
        timestamp: new Date("2025-01-02T03:04:05Z"),
        org: "acme",
        repository: { host: "github.com", owner: "acme", name: "w" },
        targetBranch: "main",
        prNumber: 4,
        status: PullRequestState.CANCELLED,
        previousStatus: PullRequestState.PENDING,
        batched: false,
        isBisection: false,
        testBranch: "",
        testBranchSha: "",
        cancellationReason: "cancelled by token:abc",
      });
      expect(event?.type).to.equal("pull_request.canceled");
      expect(event?.payload).to.deep.equal({
        type: "pull_request.canceled",
        timestamp: "2025-01-02T03:04:05.000Z",
        repository: { host: "github.com", owner: "acme", name: "w" },
        target_branch: "main",
        pr_number: 4,
        status: "CANCELLED",
        batched: false,
        is_bisection: false,
        test_branch: null,
        test_branch_sha: null,
        cancellation_reason: "cancelled by token:abc",
      });
    });
    it("writes test statuses lowercase in test_case.status_changed", () => {
      const event = testStatusWebhookEvent({
        eventId: "t1",
        org: "acme",
        repo: { host: "github.com", owner: "acme", name: "w" },
        testId: "uuid",
        name: "adds",
        variant: "",
        oldStatus: TestStatus.HEALTHY,
        newStatus: TestStatus.FLAKY,
        reason: "failed then passed on the same commit",
        timestamp: new Date(0),
        quarantined: true,
        htmlUrl: "",
        codeowners: ["@team"],
      });
      expect(event.payload).to.deep.include({
        type: "test_case.status_changed",
        status: "flaky",
        previous_status: "healthy",
      });
      expect(event.payload.test_case).to.deep.include({ id: "uuid", name: "adds", quarantined: true });
    });
  });
});
