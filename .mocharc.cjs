// Tests run TypeScript sources directly (tsx) and resolve workspace packages to their src/
// through the "mainline-source" export condition, so no build is needed before testing.
module.exports = {
  "node-option": ["conditions=mainline-source", "import=tsx"],
  spec: ["proto/test/**/*.test.ts", "services/*/test/**/*.test.ts", "tools/test/**/*.test.ts", "tools/testing/test/**/*.test.ts"],
  timeout: 20000,
  exit: true,
};
