import type { ErrorCode } from "./errors.js";

/**
 * The one table that maps an error code to its HTTP status. An error code is also the name of its gRPC status
 * (kit's grpc module maps it by that name), so the gateway answers a failed call with the HTTP status here.
 * No gRPC here: domain code imports these errors, and the domain loads no I/O library.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 400,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  FAILED_PRECONDITION: 409,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  ABORTED: 409,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
  // A service older than the gateway (a rolling upgrade) lacks a method: not the caller's fault, nor a crash.
  UNIMPLEMENTED: 501,
  INTERNAL: 500,
};

export function isErrorCode(name: string): name is ErrorCode {
  return Object.hasOwn(HTTP_STATUS, name);
}
