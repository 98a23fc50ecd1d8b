// The test files' last wall times, kept in node_modules/.cache (never tracked), so that `make test` starts the
// slowest files first: the run then ends with many short files in parallel instead of one long one alone.
//   node test-times.cjs order FILE...   prints the files, unknown ones first, then the slowest first
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
if (command === "order") {
  const times = read();
  const ms = (file) => times[file] ?? Infinity;
  console.log([...args].sort((a, b) => ms(b) - ms(a)).join("\n"));
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
