export * from "./telemetry.js";
