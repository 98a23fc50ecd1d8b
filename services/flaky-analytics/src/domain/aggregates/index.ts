export * from "./hourly-buckets.js";
export * from "./daily-costs.js";
export * from "./status-changes.js";
export * from "./repository-trend.js";
