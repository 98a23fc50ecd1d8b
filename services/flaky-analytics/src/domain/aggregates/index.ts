export * from "./hourly-buckets.js";
