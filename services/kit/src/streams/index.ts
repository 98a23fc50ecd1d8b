export * from "./mainline-streams.js";
