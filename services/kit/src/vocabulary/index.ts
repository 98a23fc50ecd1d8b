// Words every service shares, defined once: pure values, no I/O (domain/ modules may import them).
export * from "./priority-names.js";
export * from "./pull-ref-pattern.js";
export * from "./merge-queue-job-name.js";
export * from "./repository-identity.js";
export * from "./queue-history-page.js";
