import { NatsError, type ApiError } from "nats";

/** JetStream API error codes (`err_code`) this package reacts to; the server's errors.json names them. */
export const JsErrCode = {
  StreamNotFound: 10059,
  StreamNameInUse: 10058,
  ConsumerNotFound: 10014,
  ConsumerAlreadyExists: 10148,
  ConsumerNameExists: 10013,
  StreamWrongLastSequence: 10071,
  NoMessageFound: 10037,
} as const;

/** The JetStream API error inside a nats.js error, when the server answered with one. */
export function jetStreamApiError(error: unknown): ApiError | undefined {
  if (error instanceof NatsError) return error.jsError() ?? undefined;
  return undefined;
}

export function hasJsErrCode(error: unknown, errCode: number): boolean {
  return jetStreamApiError(error)?.err_code === errCode;
}
