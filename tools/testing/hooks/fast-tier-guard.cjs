// The fast tier's rule, checked: a *.unit.test.ts file (what `make check` runs) starts no process, no server and
// no git. While only such files run (always so in a parallel worker, which runs one file at a time), starting a
// child process or listening on a port fails the test that tried, saying where such a test belongs.
const childProcess = require("node:child_process");
const net = require("node:net");
const { syncBuiltinESMExports } = require("node:module");
const { promisify } = require("node:util");

const UNIT = /\.unit\.test\.[cm]?[jt]s$/;
let armed = false;

function refuse(what) {
  if (!armed) return;
  throw new Error(
    `${what} in a *.unit.test.ts file: unit tests (make check) start no process, no server and no git; ` +
      "name the file *.test.ts so that only make test runs it",
  );
}

/** `original`, refusing first; util.promisify(exec / execFile) uses their own promise form, guarded too. */
function guard(original, what) {
  const guarded = function (...args) {
    refuse(`${what}(${JSON.stringify(String(args[0]))})`);
    return original.apply(this, args);
  };
  const promised = original[promisify.custom];
  if (promised) guarded[promisify.custom] = guard(promised, what);
  return guarded;
}

for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
  childProcess[name] = guard(childProcess[name], `child_process.${name}`);
}
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function guardedListen(...args) {
  refuse("a server listening on a port");
  return listen.apply(this, args);
};
// ES modules' named imports of node:child_process read the builtin's exports as they were; make them see ours.
syncBuiltinESMExports();

exports.mochaHooks = {
  beforeAll() {
    const files = (this.test?.parent?.suites ?? []).map((suite) => suite.file ?? "");
    armed = files.length > 0 && files.every((file) => UNIT.test(file));
  },
  afterAll() {
    armed = false;
  },
};
