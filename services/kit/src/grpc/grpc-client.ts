import {
  credentials,
  Metadata,
  type CallOptions,
  type Client,
  type ClientUnaryCall,
  type Interceptor,
  InterceptingCall,
  type ServiceError,
  status as GrpcStatusCode,
} from "@grpc/grpc-js";
import { MainlineError, type ErrorCode } from "../errors/index.js";
import { errorCodeOfGrpcStatus } from "./grpc-status.js";
import { injectTraceContext } from "./trace-metadata.js";

/** A failed call to another service, carrying that service's error code and message unchanged. */
export class RemoteCallError extends MainlineError {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  constructor(
    message: string,
    readonly grpcStatus: number,
  ) {
    super(message);
    this.code = errorCodeOfGrpcStatus(grpcStatus);
    this.retryable =
      this.code === "UNAVAILABLE" || this.code === "ABORTED" || this.code === "DEADLINE_EXCEEDED";
  }
}

const traceInterceptor: Interceptor = (options, nextCall) =>
  new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      injectTraceContext(metadata);
      next(metadata, listener);
    },
  });

/**
 * Calls are spread over every address the target resolves to (the replicas listed in a `*_ADDR`, or a headless
 * Kubernetes service's pods) and skip one that stopped answering; the default, pick_first, would send every call
 * to one replica until it dies.
 */
export const ROUND_ROBIN = {
  "grpc.service_config": JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
};

/** `a:1,b:2` (replicas, IPv4) becomes grpc-js's static list `ipv4:a:1,b:2`; one `host:port` stays as it is. */
export function grpcTarget(address: string): string {
  return address.includes(",") ? `ipv4:${address}` : address;
}

type ClientConstructor<C extends Client> = new (
  address: string,
  creds: ReturnType<typeof credentials.createInsecure>,
  options?: object,
) => C;

export function createGrpcClient<C extends Client>(Ctor: ClientConstructor<C>, address: string): C {
  // One address keeps pick_first: round_robin fails every call at once while its only subchannel backs off after
  // the service restarted, where pick_first reconnects on the next call.
  const replicas = address.includes(",") ? ROUND_ROBIN : {};
  return new Ctor(grpcTarget(address), credentials.createInsecure(), {
    ...replicas,
    interceptors: [traceInterceptor],
    "grpc.max_send_message_length": 32 * 1024 * 1024,
    "grpc.max_receive_message_length": 32 * 1024 * 1024,
    // channelz keeps per-call statistics for a debugging service we do not expose: cost on every call, no reader.
    "grpc.enable_channelz": 0,
  });
}

export type UnaryMethod<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: Partial<CallOptions>,
  callback: (error: ServiceError | null, response: Res) => void,
) => ClientUnaryCall;

/**
 * Calls a unary method as a promise; failures become RemoteCallError with the remote message. `signal`: the
 * caller went away (an HTTP client that hung up); the call is cancelled, so the service can drop work it has not
 * started for nobody (see CallContext.signal).
 */
export function callUnary<Req, Res>(
  method: UnaryMethod<Req, Res>,
  request: Req,
  options: { deadlineMs?: number; signal?: AbortSignal } = {},
): Promise<Res> {
  return new Promise<Res>((resolve, reject) => {
    const { signal } = options;
    if (signal?.aborted) {
      reject(new RemoteCallError("the caller went away before the call", GrpcStatusCode.CANCELLED));
      return;
    }
    const deadline = new Date(Date.now() + (options.deadlineMs ?? 30_000));
    const cancel = () => call.cancel();
    const call = method(request, new Metadata(), { deadline }, (error, response) => {
      signal?.removeEventListener("abort", cancel);
      if (error) reject(new RemoteCallError(error.details || error.message, error.code));
      else resolve(response);
    });
    signal?.addEventListener("abort", cancel, { once: true });
  });
}
