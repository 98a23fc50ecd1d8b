import { readFileSync } from "node:fs";

export function junitFixture(name: string): string {
  return readFileSync(new URL(`./fixtures/junit/${name}`, import.meta.url), "utf8");
}
