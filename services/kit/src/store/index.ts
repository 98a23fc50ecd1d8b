export * from "./store.js";
export { openStore, type OpenStoreOptions } from "./open-store.js";
export { EmbeddedStore, type EmbeddedStoreOptions } from "./embedded-store.js";
export { MongodbStore } from "./mongodb-store.js";
export { bucketName } from "./bucket-naming.js";
