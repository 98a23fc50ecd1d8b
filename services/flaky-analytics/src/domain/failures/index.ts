export * from "./normalize-failure-message.js";
export * from "./failure-groups.js";
