import { expect } from "chai";
import {
  parsePriorityText,
  PRIORITY_NAMES,
  PRIORITY_VALUES,
  priorityInput,
  priorityLabel,
  priorityValueOf,
  readPriority,
} from "../src/index.js";

describe("contract: priority", () => {
  it("names the levels most urgent first, each with its value (compat-notes)", () => {
    expect(PRIORITY_NAMES.map((n) => [n, PRIORITY_VALUES[n]])).to.deep.equal([
      ["urgent", 0],
      ["high", 10],
      ["medium", 100],
      ["low", 200],
    ]);
  });

  it("reads a wire value: a name in any case or an integer 0..255, nothing else", () => {
    expect(readPriority("HIGH")).to.equal("high");
    expect(readPriority(255)).to.equal(255);
    for (const bad of [256, -1, 1.5, "10", " high", null])
      expect(readPriority(bad), String(bad)).to.equal(undefined);
  });

  it("reads typed text: a name or decimal digits 0..255", () => {
    expect(parsePriorityText("Urgent")).to.equal("urgent");
    expect(parsePriorityText("42")).to.equal(42);
    for (const bad of ["256", "0x1", "", "1e2"]) expect(parsePriorityText(bad), bad).to.equal(undefined);
  });

  it("travels as one number and reads back as the level's name", () => {
    expect(priorityValueOf("low")).to.equal(200);
    expect(priorityValueOf(7)).to.equal(7);
    expect(priorityLabel(10)).to.equal("high");
    expect(priorityLabel(11)).to.equal("11");
  });

  it("the HTTP schema takes what readPriority takes", () => {
    for (const v of ["Medium", 0, 255]) expect(priorityInput.safeParse(v).success, String(v)).to.equal(true);
    for (const v of [256, "10", "soon"])
      expect(priorityInput.safeParse(v).success, String(v)).to.equal(false);
  });
});
