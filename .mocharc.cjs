// Tests run TypeScript sources directly (tsx) and resolve workspace packages to their src/
// through the "mainline-source" export condition, so no build is needed before testing.
// No spec here: `npx mocha <files>` runs just those files; tools/scripts/test.sh finds each tier's files
// (`make check`: *.unit.test.ts, `make test`: every *.test.ts) and runs them in parallel.
module.exports = {
  "node-option": ["conditions=mainline-source", "import=tsx"],
  require: ["tools/testing/hooks/fast-tier-guard.cjs", "tools/testing/hooks/file-times.cjs"],
  // 60 s, not 20: `make test` runs four files at once on two shared cores, and a git fixture that takes 2 s alone
  // was seen to take over 20 s there.
  timeout: 60000,
  exit: true,
};
