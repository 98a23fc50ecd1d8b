// Shared references: RepoRef, QueueRef (mainline.common.v1).
export * from "./gen/mainline/common/v1/common.js";
