// mainline.auth.v1: the Auth gRPC service, organisations and API tokens.
export * from "./gen/mainline/auth/v1/auth.js";
export * from "./gen/mainline/auth/v1/auth_service.js";
