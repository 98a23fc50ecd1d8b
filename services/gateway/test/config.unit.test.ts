import { expect } from "chai";
import { ConfigError, loadConfig } from "@mainline/kit/config/index";
import { configSchema } from "../src/config.js";

const problemsOf = (env: NodeJS.ProcessEnv): string[] => {
  try {
    loadConfig(configSchema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe("gateway configuration: code-host secret, token cache, status-poll coalescing", () => {
  it("has no webhook secret and a 5 s token cache by default", () => {
    const config = loadConfig(configSchema, {});
    expect(config.CODE_HOST_WEBHOOK_SECRET).to.equal(undefined);
    expect(config.GATEWAY_AUTH_CACHE_TTL_MS).to.equal(5000);
    expect(config.GATEWAY_STATUS_POLL_BATCH_SIZE).to.equal(100);
  });

  it("takes 1..1000 status polls per coalesced call, naming the variable and the rule otherwise", () => {
    expect(
      loadConfig(configSchema, { GATEWAY_STATUS_POLL_BATCH_SIZE: "1" }).GATEWAY_STATUS_POLL_BATCH_SIZE,
    ).to.equal(1);
    expect(problemsOf({ GATEWAY_STATUS_POLL_BATCH_SIZE: "0" })).to.deep.equal([
      'GATEWAY_STATUS_POLL_BATCH_SIZE: expected a whole number of polls from 1 to 1000 (got "0")',
    ]);
    expect(problemsOf({ GATEWAY_STATUS_POLL_BATCH_SIZE: "2.5" })).to.deep.equal([
      'GATEWAY_STATUS_POLL_BATCH_SIZE: expected a whole number of polls from 1 to 1000 (got "2.5")',
    ]);
    expect(problemsOf({ GATEWAY_STATUS_POLL_BATCH_SIZE: "1001" })).to.deep.equal([
      'GATEWAY_STATUS_POLL_BATCH_SIZE: expected at most 1000 (the queue-coordinator\'s limit per call) (got "1001")',
    ]);
  });

  it("treats an empty secret as unset (a chart always passes the variable)", () => {
    expect(loadConfig(configSchema, { CODE_HOST_WEBHOOK_SECRET: "" }).CODE_HOST_WEBHOOK_SECRET).to.equal(
      undefined,
    );
    expect(
      loadConfig(configSchema, { CODE_HOST_WEBHOOK_SECRET: "It's a Secret to Everybody" })
        .CODE_HOST_WEBHOOK_SECRET,
    ).to.equal("It's a Secret to Everybody");
  });

  it("names the variable and the rule for a secret too short to be one, and for a bad cache time", () => {
    expect(problemsOf({ CODE_HOST_WEBHOOK_SECRET: "abc" })).to.deep.equal([
      'CODE_HOST_WEBHOOK_SECRET: expected at least 8 characters (got "abc")',
    ]);
    expect(problemsOf({ GATEWAY_AUTH_CACHE_TTL_MS: "-1" })).to.deep.equal([
      'GATEWAY_AUTH_CACHE_TTL_MS: expected a whole number of milliseconds (0 disables) (got "-1")',
    ]);
    expect(problemsOf({ GATEWAY_AUTH_CACHE_TTL_MS: "600000" })[0]).to.match(
      /^GATEWAY_AUTH_CACHE_TTL_MS: expected at most/,
    );
    expect(loadConfig(configSchema, { GATEWAY_AUTH_CACHE_TTL_MS: "0" }).GATEWAY_AUTH_CACHE_TTL_MS).to.equal(
      0,
    );
  });
});
