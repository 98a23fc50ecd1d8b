export * from "./in-span.js";
export * from "./telemetry.js";
