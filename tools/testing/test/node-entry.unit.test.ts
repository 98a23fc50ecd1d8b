import { expect } from "chai";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeEntryArgs, RUN_COMPILED_ENV } from "../src/index.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

describe("nodeEntryArgs: how a test starts a workspace entry point in its own process", () => {
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env[RUN_COMPILED_ENV];
  });
  afterEach(() => {
    if (saved === undefined) delete process.env[RUN_COMPILED_ENV];
    else process.env[RUN_COMPILED_ENV] = saved;
  });

  it("runs the TypeScript source through tsx by default, as make dev does", () => {
    delete process.env[RUN_COMPILED_ENV];
    expect(nodeEntryArgs("services/metrics/src/main.ts", root)).to.deep.equal([
      "--conditions=mainline-source",
      "--import",
      "tsx",
      "services/metrics/src/main.ts",
    ]);
  });

  it("runs the package's tsc output once make test has built it, and refuses a build that is not there", () => {
    process.env[RUN_COMPILED_ENV] = "1";
    expect(() => nodeEntryArgs("services/metrics/src/no-such-entry.ts", root)).to.throw(
      "services/metrics/dist/src/no-such-entry.js was not built",
    );
    expect(() => nodeEntryArgs("services/metrics/main.ts", root)).to.throw(
      "not a package's src/**.ts entry point",
    );
  });
});
