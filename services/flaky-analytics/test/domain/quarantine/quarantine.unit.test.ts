import { expect } from "chai";
import {
  DEFAULT_QUARANTINE_SETTINGS,
  isQuarantined,
  quarantineConfig,
} from "../../../src/domain/quarantine/index.js";
import type { QuarantineOverride } from "../../../src/domain/quarantine/index.js";
import type { TestStatusValue } from "../../../src/domain/status/index.js";

const on = { quarantiningEnabled: true, autoQuarantineEnabled: true };
const manualOnly = { quarantiningEnabled: true, autoQuarantineEnabled: false };
const off = { quarantiningEnabled: false, autoQuarantineEnabled: true };

describe("quarantine", () => {
  it("follows the spec's rule in every combination", () => {
    const statuses: TestStatusValue[] = ["healthy", "flaky", "broken"];
    const overrides: Array<QuarantineOverride | undefined> = [
      undefined,
      "ALWAYS_QUARANTINE",
      "NEVER_QUARANTINE",
    ];
    for (const settings of [on, manualOnly, off, DEFAULT_QUARANTINE_SETTINGS]) {
      for (const status of statuses) {
        for (const override of overrides) {
          const expected =
            settings.quarantiningEnabled &&
            (override === "ALWAYS_QUARANTINE" ||
              (override !== "NEVER_QUARANTINE" &&
                settings.autoQuarantineEnabled &&
                (status === "flaky" || status === "broken")));
          expect(
            isQuarantined(settings, override, status),
            JSON.stringify({ settings, status, override }),
          ).to.equal(expected);
        }
      }
    }
  });

  it("examples: auto quarantines flaky and broken tests, NEVER wins over auto, ALWAYS needs quarantining on", () => {
    expect(isQuarantined(on, undefined, "flaky")).to.be.true;
    expect(isQuarantined(on, undefined, "healthy")).to.be.false;
    expect(isQuarantined(on, "NEVER_QUARANTINE", "broken")).to.be.false;
    expect(isQuarantined(manualOnly, "ALWAYS_QUARANTINE", "healthy")).to.be.true;
    expect(isQuarantined(manualOnly, undefined, "broken")).to.be.false;
    expect(isQuarantined(off, "ALWAYS_QUARANTINE", "broken")).to.be.false;
  });

  it("builds the config CI wrappers fetch, in a stable order", () => {
    const tests = [
      { id: "c", status: "flaky" as const },
      { id: "a", status: "healthy" as const, override: "ALWAYS_QUARANTINE" as const },
      { id: "b", status: "broken" as const, override: "NEVER_QUARANTINE" as const },
      { id: "d", status: "healthy" as const },
    ];
    expect(quarantineConfig(on, tests)).to.deep.equal({ isDisabled: false, testIds: ["a", "c"] });
    expect(quarantineConfig(off, tests)).to.deep.equal({ isDisabled: true, testIds: [] });
    expect(quarantineConfig(on, [])).to.deep.equal({ isDisabled: false, testIds: [] });
  });
});
