import { status as GrpcStatus } from "@grpc/grpc-js";
import { isErrorCode, type ErrorCode } from "../errors/index.js";

/** The gRPC status of an error code: the status of the same name (the compiler checks every code has one). */
export function grpcStatusOf(code: ErrorCode): GrpcStatus {
  return GrpcStatus[code];
}

/** The error code of a failed call; a status no error code names (CANCELLED, UNKNOWN, DATA_LOSS...) is INTERNAL. */
export function errorCodeOfGrpcStatus(status: number): ErrorCode {
  const name: string | undefined = GrpcStatus[status];
  return name !== undefined && isErrorCode(name) ? name : "INTERNAL";
}
