import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import {
  createQueueSettings,
  DEFAULT_QUEUE_SETTINGS,
  effectiveBisectionConcurrency,
  effectiveOptimizationMode,
} from "../../src/domain/index.js";
import { parsePriority, parseSettingsPatch } from "../../src/api/command-parser.js";

function invalid(fn: () => unknown): InvalidArgumentError {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    return error as InvalidArgumentError;
  }
  throw new Error("expected an InvalidArgumentError");
}

describe("queue settings", () => {
  it("has the defaults of compat-notes", () => {
    const s = createQueueSettings();
    expect(s).to.include({
      mode: "SINGLE",
      concurrency: 1,
      testingTimeoutMinutes: 300,
      pendingFailureDepth: 0,
      batch: false,
      batchingMaxWaitTimeMinutes: 5,
      batchingMinSize: 4,
      canOptimisticallyMerge: false,
      mergeMethod: "SQUASH",
      batchingMode: "FIXED",
      bisectionMode: "ISOLATED",
    });
    expect(parseSettingsPatch({ batchingMode: "adaptive" })).to.deep.equal({ batchingMode: "ADAPTIVE" });
    expect(parseSettingsPatch({ bisectionMode: "stacked" })).to.deep.equal({ bisectionMode: "STACKED" });
    expect(invalid(() => parseSettingsPatch({ bisectionMode: "BINARY" })).message).to.contain(
      "bisectionMode",
    );
    expect(invalid(() => parseSettingsPatch({ batchingMode: "SOMETIMES" })).message).to.contain(
      "batchingMode",
    );
    expect(effectiveBisectionConcurrency({ ...s, concurrency: 3 })).to.equal(3);
    expect(effectiveOptimizationMode({ ...s, batch: true })).to.equal("BISECTION_SKIP_REDUNDANT_TESTS");
  });

  it("accepts enum values in any case and a requested state", () => {
    expect(parseSettingsPatch({ mode: "parallel", state: "paused", mergeMethod: "rebase" })).to.deep.equal({
      mode: "PARALLEL",
      state: "PAUSED",
      mergeMethod: "REBASE",
    });
  });

  const bad: [Record<string, unknown>, string, string][] = [
    [{ concurrency: 0 }, "concurrency", "must be an integer >= 1"],
    [{ concurrency: 1.5 }, "concurrency", "must be an integer >= 1"],
    [{ batchingMinSize: "4" }, "batchingMinSize", "must be an integer >= 1"],
    [{ testingTimeoutMinutes: -1 }, "testingTimeoutMinutes", "must be an integer >= 0"],
    [{ pendingFailureDepth: -2 }, "pendingFailureDepth", "must be an integer >= 0"],
    [{ mode: "SIDEWAYS" }, "mode", "must be one of SINGLE, PARALLEL"],
    [{ state: "SWITCHING_MODES" }, "state", "must be one of RUNNING, PAUSED, DRAINING"],
    [{ batch: "yes" }, "batch", "must be a boolean"],
    [{ requiredStatuses: ["ci", ""] }, "requiredStatuses", "must be a list of non-empty strings"],
    [{ branch: "other" }, "branch", "is not a queue setting"],
  ];
  for (const [patch, field, rule] of bad) {
    it(`rejects ${JSON.stringify(patch)} naming the field and the rule`, () => {
      const error = invalid(() => parseSettingsPatch(patch));
      expect(error.field).to.equal(field);
      expect(error.rule).to.equal(rule);
    });
  }

  it("never shares the default required statuses list", () => {
    expect(createQueueSettings().requiredStatuses).to.not.equal(DEFAULT_QUEUE_SETTINGS.requiredStatuses);
  });
});

describe("priorities", () => {
  it("maps names to values and back, with medium as the default", () => {
    expect(parsePriority(undefined)).to.deep.equal({ value: 100, name: "medium", usedDefault: true });
    expect(parsePriority("URGENT")).to.deep.equal({ value: 0, name: "urgent", usedDefault: false });
    expect(parsePriority(10)).to.deep.equal({ value: 10, name: "high", usedDefault: false });
    expect(parsePriority(42)).to.deep.equal({ value: 42, name: null, usedDefault: false });
  });

  for (const value of [-1, 256, 1.5, "critical", true]) {
    it(`rejects priority ${JSON.stringify(value)}`, () => {
      expect(invalid(() => parsePriority(value)).field).to.equal("priority");
    });
  }
});
