/**
 * Typed errors that carry their meaning. Every error the system raises on purpose is a
 * MainlineError with a `code` (what went wrong, in gRPC's vocabulary, so one table maps it to
 * HTTP) and a retry decision: terminal errors are final, retryable ones may succeed later.
 * The retry decision is what a JetStream consumer uses to choose term() or nak(delay).
 */
export type ErrorCode =
  | "INVALID_ARGUMENT"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "FAILED_PRECONDITION"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "RESOURCE_EXHAUSTED"
  | "UNAVAILABLE"
  | "DEADLINE_EXCEEDED"
  | "ABORTED"
  | "UNIMPLEMENTED"
  | "INTERNAL";

export abstract class MainlineError extends Error {
  abstract readonly code: ErrorCode;
  /** True when trying the same thing again later can succeed. */
  abstract readonly retryable: boolean;
  /** For retryable errors: how long to wait before the next attempt. */
  readonly retryAfterMs: number | undefined = undefined;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The request is malformed: `field` breaks `rule`. Thrown by validation; never retried. */
export class InvalidArgumentError extends MainlineError {
  readonly code = "INVALID_ARGUMENT";
  readonly retryable = false;
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
  }
}

/** The named object does not exist (or is not visible to the caller's organisation). */
export class NotFoundError extends MainlineError {
  readonly code = "NOT_FOUND";
  readonly retryable = false;
}

/** Creating something that is already there (a second queue on a branch, a PR already enqueued). */
export class AlreadyExistsError extends MainlineError {
  readonly code = "ALREADY_EXISTS";
  readonly retryable = false;
}

/** The request is well formed but the current state forbids it (deleting a non-empty queue). */
export class FailedPreconditionError extends MainlineError {
  readonly code = "FAILED_PRECONDITION";
  readonly retryable = false;
}

export class UnauthenticatedError extends MainlineError {
  readonly code = "UNAUTHENTICATED";
  readonly retryable = false;
}

export class PermissionDeniedError extends MainlineError {
  readonly code = "PERMISSION_DENIED";
  readonly retryable = false;
}

/** A concurrent writer got there first (compare-and-set lost); the caller may re-read and retry. */
export class ConflictError extends MainlineError {
  readonly code = "ABORTED";
  readonly retryable = true;
  override readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 50) {
    super(message);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A dependency (NATS, the store, a git remote) is unreachable for now. */
export class UnavailableError extends MainlineError {
  readonly code = "UNAVAILABLE";
  readonly retryable = true;
  override readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs = 1000, options?: ErrorOptions) {
    super(message, options);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A bug or broken invariant: never retried, always logged. */
export class InternalError extends MainlineError {
  readonly code = "INTERNAL";
  readonly retryable = false;
}

/** Unknown throwables are treated as retryable: a crash-looping message ends at max_deliver. */
export function isRetryable(error: unknown): boolean {
  return error instanceof MainlineError ? error.retryable : true;
}

export function retryDelayMs(error: unknown, fallbackMs: number): number {
  return error instanceof MainlineError && error.retryAfterMs !== undefined ? error.retryAfterMs : fallbackMs;
}
