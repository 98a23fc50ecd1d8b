import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { DEFAULT_STATUS_SETTINGS } from "../../../src/domain/status/index.js";
import { resolveStatusSettings } from "../../../src/api/command-parser.js";

function rejected(input: Record<string, unknown>): InvalidArgumentError {
  try {
    resolveStatusSettings(input);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    return error as InvalidArgumentError;
  }
  throw new Error("expected the settings to be rejected");
}

describe("resolveStatusSettings", () => {
  it("fills every default: 7-day windows, 20% failure rate, broken after 5 failures", () => {
    expect(resolveStatusSettings()).to.deep.equal(DEFAULT_STATUS_SETTINGS);
    expect(DEFAULT_STATUS_SETTINGS).to.include({
      quietWindowHours: 168,
      rateWindowHours: 168,
      failureRateThreshold: 0.2,
      brokenAfterConsecutiveFailures: 5,
    });
  });

  it("keeps the values a repository sets", () => {
    const settings = resolveStatusSettings({ failureRateThreshold: 0.5, quietWindowHours: 48 });
    expect(settings).to.include({ failureRateThreshold: 0.5, quietWindowHours: 48, minTargetBranchRuns: 10 });
  });

  it("names the field and the rule of a bad value", () => {
    expect(rejected({ failureRateThreshold: 0 })).to.include({
      field: "failureRateThreshold",
      rule: "must be a number greater than 0 and at most 1",
    });
    expect(rejected({ failureRateThreshold: 1.5 }).field).to.equal("failureRateThreshold");
    expect(rejected({ failureRateThreshold: "0.2" }).field).to.equal("failureRateThreshold");
    expect(rejected({ quietWindowHours: 2.5 })).to.include({ field: "quietWindowHours" });
    expect(rejected({ quietWindowHours: 0 }).rule).to.equal("must be an integer from 1 to 2160");
    expect(rejected({ brokenAfterConsecutiveFailures: 1 }).field).to.equal("brokenAfterConsecutiveFailures");
    expect(rejected({ minTargetBranchRuns: -3 }).field).to.equal("minTargetBranchRuns");
  });

  it("rejects a sample too small for the rules to fire, and unknown settings", () => {
    expect(rejected({ targetBranchSampleSize: 4 }).field).to.equal("targetBranchSampleSize");
    expect(rejected({ minTargetBranchRuns: 60 }).field).to.equal("targetBranchSampleSize");
    expect(rejected({ quietWindowDays: 7 })).to.include({
      field: "quietWindowDays",
      rule: "is not a known status setting",
    });
  });
});
