import { ConflictError, InvalidArgumentError, MainlineError, UnavailableError } from "../errors/index.js";

/** JetStream's "wrong last sequence": the entry's revision moved since we read it. */
const WRONG_LAST_SEQUENCE = 10071;

interface NatsLikeError {
  code?: unknown;
  message?: unknown;
  api_error?: { err_code?: number };
}

export function isRevisionMismatch(error: unknown): boolean {
  const e = error as NatsLikeError | null;
  return (
    e?.api_error?.err_code === WRONG_LAST_SEQUENCE ||
    (typeof e?.message === "string" && e.message.includes("wrong last sequence"))
  );
}

/** Turns what a key-value call threw into the store's typed errors. */
export function storeErrorOfKv(error: unknown, what: string): MainlineError {
  if (error instanceof MainlineError) return error;
  if (isRevisionMismatch(error)) {
    return new ConflictError(`${what}: another process changed the document first`);
  }
  const e = error as NatsLikeError | null;
  if (e?.code === "MAX_PAYLOAD_EXCEEDED") {
    return new InvalidArgumentError("document", "is larger than the NATS server's max_payload");
  }
  const reason = error instanceof Error ? error.message : String(error);
  return new UnavailableError(`${what}: NATS key-value store unavailable (${reason})`, 1000, {
    cause: error,
  });
}
