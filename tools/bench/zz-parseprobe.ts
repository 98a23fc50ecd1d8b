import { parseJUnitXml } from "@mainline/flaky-analytics/domain/index";
const tests = 20000;
const parts: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>'];
for (let first = 0; first < tests; first += 50) {
  const cls = `com.acme.module${Math.floor(first / 1000)}.Feature${first / 50}Test`;
  parts.push(`<testsuite name="${cls}" tests="50" file="src/test/java/${cls.replaceAll(".", "/")}.java">`);
  for (let i = first; i < first + 50; i++) {
    if (i % 50 === 7) parts.push(`<testcase name="case${i}" classname="${cls}" time="0.012"><failure message="expected 1 but was ${i}" type="java.lang.AssertionError">at ${cls}.case${i}(Feature.java:${i % 300})</failure></testcase>`);
    else parts.push(`<testcase name="case${i}" classname="${cls}" time="0.004"/>`);
  }
  parts.push("</testsuite>");
}
parts.push("</testsuites>");
const xml = parts.join("\n");
const times: number[] = [];
for (let r = 0; r < 8; r++) {
  const t = process.cpuUsage();
  parseJUnitXml(xml);
  const d = process.cpuUsage(t);
  times.push((d.user + d.system) / 1000);
}
times.sort((a, b) => a - b);
console.log(`parse 20k cases: min ${times[0]!.toFixed(0)} ms, median ${times[4]!.toFixed(0)} ms`);
