export * from "./mainline-streams.js";
export * from "./test-run-outputs.js";
