export * from "./test-case-result.js";
export * from "./parse-junit.js";
export { shortenText } from "./shorten-text.js";
export * from "./test-id.js";
export * from "./failed-tests.js";
