import { expect } from "chai";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { makeTestAppCredentials } from "@mainline/testing";
import { ConfigError, loadConfig } from "../../src/config/index.js";
import { gitHubAppConfig, gitHubAppSettings, requireWholeGitHubApp } from "../../src/github/index.js";

const schema = z.object(gitHubAppConfig).superRefine(requireWholeGitHubApp);
const { privateKey } = makeTestAppCredentials();

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(schema, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("GitHub App configuration", () => {
  it("is off when nothing is set, and defaults to github.com", () => {
    const config = loadConfig(schema, {});
    expect(gitHubAppSettings(config)).to.equal(undefined);
    expect(config.GITHUB_API_URL).to.equal("https://api.github.com");
  });

  it("reads empty variables (compose's ${GITHUB_APP_ID:-}) as unset", () => {
    const config = loadConfig(schema, {
      GITHUB_APP_ID: "",
      GITHUB_APP_PRIVATE_KEY: "",
      GITHUB_APP_PRIVATE_KEY_FILE: "",
      GITHUB_WEBHOOK_SECRET: "",
      GITHUB_API_URL: "",
    });
    expect(gitHubAppSettings(config)).to.equal(undefined);
    expect(config.GITHUB_API_URL).to.equal("https://api.github.com");
  });

  it("reads an inline key written on one line with \\n, and an Enterprise Server URL", () => {
    const config = loadConfig(schema, {
      GITHUB_APP_ID: "123",
      GITHUB_APP_PRIVATE_KEY: privateKey.replace(/\n/g, "\\n"),
      GITHUB_WEBHOOK_SECRET: "s".repeat(32),
      GITHUB_API_URL: "https://github.example.com/api/v3/",
    });
    expect(gitHubAppSettings(config)).to.deep.equal({
      appId: 123,
      privateKey,
      webhookSecret: "s".repeat(32),
      apiUrl: "https://github.example.com/api/v3",
    });
  });

  it("reads the key from a file (a mounted Secret)", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "gh-key-"));
    try {
      const file = path.join(dir, "key.pem");
      await writeFile(file, privateKey);
      const config = loadConfig(schema, { GITHUB_APP_ID: "7", GITHUB_APP_PRIVATE_KEY_FILE: file });
      expect(gitHubAppSettings(config)?.privateKey).to.equal(privateKey);
      expect(
        problems({ GITHUB_APP_ID: "7", GITHUB_APP_PRIVATE_KEY_FILE: path.join(dir, "none.pem") }),
      ).to.deep.equal([
        'GITHUB_APP_PRIVATE_KEY_FILE: cannot read the file (ENOENT) (got "' +
          path.join(dir, "none.pem") +
          '")',
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names each variable of a half or badly configured App", () => {
    expect(problems({ GITHUB_APP_ID: "12" })[0]).to.match(
      /^GITHUB_APP_PRIVATE_KEY: required with GITHUB_APP_ID/,
    );
    expect(problems({ GITHUB_WEBHOOK_SECRET: "x".repeat(20) })[0]).to.match(/^GITHUB_APP_ID: required when/);
    expect(problems({ GITHUB_APP_ID: "abc", GITHUB_APP_PRIVATE_KEY: privateKey })[0]).to.match(
      /^GITHUB_APP_ID: expected the App's numeric id/,
    );
    expect(problems({ GITHUB_APP_ID: "1", GITHUB_APP_PRIVATE_KEY: "not a key" })[0]).to.match(
      /^GITHUB_APP_PRIVATE_KEY: expected a PEM private key/,
    );
    expect(
      problems({ GITHUB_APP_ID: "1", GITHUB_APP_PRIVATE_KEY: privateKey, GITHUB_WEBHOOK_SECRET: "short" })[0],
    ).to.match(/^GITHUB_WEBHOOK_SECRET: expected a webhook secret of 16 to 256/);
    expect(problems({ GITHUB_API_URL: "ftp://github.example.com" })[0]).to.match(
      /^GITHUB_API_URL: expected an http\(s\) URL/,
    );
  });
});
