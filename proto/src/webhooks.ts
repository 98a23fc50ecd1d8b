// mainline.webhooks.v1: the Webhooks gRPC service, subscriptions and deliveries.
export * from "./gen/mainline/webhooks/v1/webhooks.js";
export * from "./gen/mainline/webhooks/v1/webhooks_service.js";
