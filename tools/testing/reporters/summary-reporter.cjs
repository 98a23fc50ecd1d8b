// Mocha's spec output, plus the counts written to MAINLINE_TEST_SUMMARY so that `make test` can end with the
// one line CI reads: "N passed, N failed".
const fs = require("node:fs");
const Mocha = require("mocha");

class SummaryReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    const skipped = [];
    runner.on("pending", (test) => skipped.push(test.fullTitle()));
    runner.once("end", () => {
      const file = process.env.MAINLINE_TEST_SUMMARY;
      if (!file) return;
      const { passes = 0, failures = 0, pending = 0 } = runner.stats ?? {};
      fs.writeFileSync(
        file,
        JSON.stringify({ passed: passes, failed: failures, skipped: pending, skippedTests: skipped }),
      );
    });
  }
}
module.exports = SummaryReporter;
