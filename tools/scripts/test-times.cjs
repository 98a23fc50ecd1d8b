// The test files' last wall times, kept in node_modules/.cache (never tracked), so that `make test` starts the
// slowest files first: the run then ends with many short files in parallel instead of one long one alone.
//   node test-times.cjs order FILE...   prints the files, unknown ones first (longest declared timeout first),
//                                       then the slowest first
//   node test-times.cjs record LINES    merges a run's times (file-times.cjs lines) and prints the slowest files
const fs = require("node:fs");
const path = require("node:path");

const cache = path.join(__dirname, "../../node_modules/.cache/mainline-tests/file-times.json");
const root = path.resolve(__dirname, "../..");
const read = () => {
  try {
    return JSON.parse(fs.readFileSync(cache, "utf8"));
  } catch {
    return {};
  }
};

const [command, ...args] = process.argv.slice(2);
// A file never timed here (a fresh clone) ranks by the longest mocha timeout it declares: the files that start a
// whole system declare minutes, and left in path order the longest of them would start last and run alone.
const declaredTimeout = (file) => {
  try {
    const found = fs.readFileSync(path.resolve(root, file), "utf8").matchAll(/timeout\(([0-9_]+)\)/g);
    return Math.max(0, ...[...found].map((m) => Number(m[1].replaceAll("_", ""))));
  } catch {
    return 0;
  }
};

if (command === "order") {
  const times = read();
  const unknown = args.filter((file) => times[file] === undefined);
  const declared = new Map(unknown.map((file) => [file, declaredTimeout(file)]));
  const rank = (file) => (times[file] === undefined ? [1, declared.get(file)] : [0, times[file]]);
  const byRank = (a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return y[0] - x[0] || y[1] - x[1];
  };
  console.log([...args].sort(byRank).join("\n"));
} else if (command === "record") {
  const times = read();
  const run = fs
    .readFileSync(args[0], "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .map(({ file, ms }) => ({ file: path.relative(root, file), ms }))
    .filter(({ file }) => !file.startsWith(".."));
  for (const { file, ms } of run) times[file] = ms;
  fs.mkdirSync(path.dirname(cache), { recursive: true });
  fs.writeFileSync(cache, JSON.stringify(times, null, 1));
  const slowest = run.sort((a, b) => b.ms - a.ms).slice(0, 5);
  console.log(
    `slowest files: ${slowest.map(({ file, ms }) => `${file} ${Math.round(ms / 1000)} s`).join(", ")}`,
  );
} else {
  console.error("usage: test-times.cjs order FILE... | record LINES");
  process.exit(2);
}
