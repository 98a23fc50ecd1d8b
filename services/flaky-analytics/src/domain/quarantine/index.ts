export * from "./quarantine.js";
