import { status as GrpcStatus } from "@grpc/grpc-js";
import type { ErrorCode } from "./errors.js";

/**
 * The one table that maps an error code to its gRPC status and its HTTP status.
 * The gateway reads the gRPC status of a failed call and answers with the HTTP status here.
 */
export const STATUS_TABLE: Readonly<Record<ErrorCode, { grpc: GrpcStatus; http: number }>> = {
  INVALID_ARGUMENT: { grpc: GrpcStatus.INVALID_ARGUMENT, http: 400 },
  NOT_FOUND: { grpc: GrpcStatus.NOT_FOUND, http: 404 },
  ALREADY_EXISTS: { grpc: GrpcStatus.ALREADY_EXISTS, http: 409 },
  FAILED_PRECONDITION: { grpc: GrpcStatus.FAILED_PRECONDITION, http: 409 },
  UNAUTHENTICATED: { grpc: GrpcStatus.UNAUTHENTICATED, http: 401 },
  PERMISSION_DENIED: { grpc: GrpcStatus.PERMISSION_DENIED, http: 403 },
  RESOURCE_EXHAUSTED: { grpc: GrpcStatus.RESOURCE_EXHAUSTED, http: 429 },
  ABORTED: { grpc: GrpcStatus.ABORTED, http: 409 },
  UNAVAILABLE: { grpc: GrpcStatus.UNAVAILABLE, http: 503 },
  DEADLINE_EXCEEDED: { grpc: GrpcStatus.DEADLINE_EXCEEDED, http: 504 },
  // A service older than the gateway (a rolling upgrade) lacks a method: not the caller's fault, nor a crash.
  UNIMPLEMENTED: { grpc: GrpcStatus.UNIMPLEMENTED, http: 501 },
  INTERNAL: { grpc: GrpcStatus.INTERNAL, http: 500 },
};

const BY_GRPC = new Map<number, ErrorCode>(
  Object.entries(STATUS_TABLE).map(([code, s]) => [s.grpc, code as ErrorCode]),
);

export function errorCodeOfGrpcStatus(status: number): ErrorCode {
  return BY_GRPC.get(status) ?? "INTERNAL";
}

export function httpStatusOfGrpcStatus(status: number): number {
  return STATUS_TABLE[errorCodeOfGrpcStatus(status)].http;
}
