export * from "./recent-runs.js";
