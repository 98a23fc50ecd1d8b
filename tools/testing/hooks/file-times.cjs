// With MAINLINE_TEST_TIMES set, each test file's wall time (its hooks included) is appended to that file as one
// JSON line, for tools/scripts/test-times.cjs: `make test` starts the slowest files first and names them.
// In a parallel worker every file is its own run, so the root hooks bracket exactly one file.
const fs = require("node:fs");

const out = process.env.MAINLINE_TEST_TIMES;
let started = 0;

exports.mochaHooks = out
  ? {
      beforeAll() {
        started = Date.now();
      },
      afterAll() {
        const files = new Set((this.test?.parent?.suites ?? []).map((suite) => suite.file).filter(Boolean));
        if (files.size !== 1) return;
        const [file] = files;
        fs.appendFileSync(out, `${JSON.stringify({ file, ms: Date.now() - started })}\n`);
      },
    }
  : {};
