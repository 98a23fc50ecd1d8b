// Tests run TypeScript sources directly (tsx) and resolve workspace packages to their src/
// through the "mainline-source" export condition, so no build is needed before testing.
// No spec here: `npx mocha <files>` runs just those files; tools/scripts/test.sh passes the whole suite.
module.exports = {
  "node-option": ["conditions=mainline-source", "import=tsx"],
  timeout: 20000,
  exit: true,
};
