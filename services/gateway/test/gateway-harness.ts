// The harness lives in src/testing so that other packages' integration tests can use it too.
export * from "../src/testing/gateway-harness.js";
