import { expect } from "chai";
import { ErrorCode, NatsError } from "nats";
import { isTransientJetStreamFailure, withAttempts } from "../../src/bus/index.js";

const timeout = () => NatsError.errorForCode(ErrorCode.Timeout);
const noResponders = () => NatsError.errorForCode(ErrorCode.NoResponders);
/** What nats.js throws for a JetStream API error (here a compare-and-set refused). */
function apiError(code: number, errCode: number, description: string): NatsError {
  const error = new NatsError(description, `${code}`);
  error.api_error = { code, err_code: errCode, description };
  return error;
}

describe("withAttempts: a JetStream request sent again while no leader answers", () => {
  const policy = { attemptMs: 30, budgetMs: 400, pauseMs: 5 };

  it("sends again after timeouts and no-responders, each attempt with a short deadline, and returns the answer", async () => {
    const deadlines: number[] = [];
    const failures = [
      timeout(),
      noResponders(),
      apiError(503, 10008, "JetStream system temporarily unavailable"),
    ];
    const answer = await withAttempts((ms) => {
      deadlines.push(ms);
      const failure = failures.shift();
      return failure ? Promise.reject(failure) : Promise.resolve("stored");
    }, policy);
    expect(answer).to.equal("stored");
    expect(deadlines).to.have.length(4);
    for (const ms of deadlines) expect(ms).to.be.within(1, 30);
  });

  it("gives a refusal to the caller at once: a compare-and-set that lost is an answer, not an outage", async () => {
    let attempts = 0;
    const refused = apiError(400, 10071, "wrong last sequence: 7");
    const error = await withAttempts(() => {
      attempts++;
      return Promise.reject(refused);
    }, policy).catch((e: unknown) => e);
    expect(error).to.equal(refused);
    expect(attempts).to.equal(1);
    expect(isTransientJetStreamFailure(refused)).to.equal(false);
  });

  it("stops within its budget and gives the last failure", async () => {
    const startedAt = Date.now();
    let attempts = 0;
    const error = await withAttempts(() => {
      attempts++;
      return Promise.reject(noResponders());
    }, policy).catch((e: unknown) => e);
    expect((error as NatsError).code).to.equal(ErrorCode.NoResponders);
    expect(attempts).to.be.above(3);
    expect(Date.now() - startedAt).to.be.below(policy.budgetMs + 200);
  });

  it("does not take other errors for an outage", () => {
    expect(isTransientJetStreamFailure(new Error("TIMEOUT"))).to.equal(false);
    expect(isTransientJetStreamFailure(NatsError.errorForCode(ErrorCode.ConnectionClosed))).to.equal(false);
  });
});
