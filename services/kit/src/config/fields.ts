import { z } from "zod";

/** Building blocks for service config schemas, so every service spells a port or a URL the same way. */

/** Compose (`${VAR:-}`) and charts pass unset variables as "": for an optional setting, empty counts as unset. */
export const unsetIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema);
export const port = (fallback: number) =>
  z.coerce
    .number({ message: "expected an integer from 1 to 65535" })
    .int("expected an integer from 1 to 65535")
    .min(1, "expected an integer from 1 to 65535")
    .max(65535, "expected an integer from 1 to 65535")
    .default(fallback);

export const natsUrl = z
  .string()
  .regex(/^(nats|tls|ws|wss):\/\/[^\s]+$/, "expected a NATS URL such as nats://127.0.0.1:4222")
  .default("nats://127.0.0.1:4222");

export const optionalUrl = unsetIfEmpty(z.url({ message: "expected an absolute URL" }).optional());

export const logLevel = z
  .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    message: "expected one of fatal, error, warn, info, debug, trace, silent",
  })
  .default("info");

/** A `host:port` address of another service. */
export const address = (fallback: string) =>
  z
    .string()
    .regex(/^[^\s:]+:\d{1,5}$/, "expected host:port, e.g. 127.0.0.1:50051")
    .default(fallback);

/**
 * Each service's own NATS user (the server refuses connections without one). Not in NATS_URL: the URL is
 * logged, and the `nats` client ignores credentials written in it.
 */
export const natsUser = z
  .string()
  .regex(/^[A-Za-z0-9_.-]{1,128}$/, "expected a NATS user name of 1 to 128 letters, digits, '_', '.' or '-'")
  .optional();
export const natsPassword = z
  .string()
  .min(1, "expected a non-empty password")
  .max(1024, "expected a password of at most 1024 characters")
  .optional();

/** Settings every service shares: where NATS is, where MongoDB is (embedded store when unset), logging. */
export const commonConfig = {
  NATS_URL: natsUrl,
  NATS_USER: natsUser,
  NATS_PASSWORD: natsPassword,
  MONGODB_URI: unsetIfEmpty(
    z
      .string()
      .regex(
        /^mongodb(\+srv)?:\/\//,
        "expected a MongoDB connection string starting with mongodb:// or mongodb+srv://",
      )
      .optional(),
  ),
  LOG_LEVEL: logLevel,
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
};

/** A whole number >= 1 (counts, sizes); `what` names it in the error, e.g. "a number of jobs". */
export const positiveInt = (fallback: number, what: string) =>
  z.coerce
    .number({ message: `expected ${what}` })
    .int(`expected ${what}`)
    .min(1, `expected ${what}`)
    .default(fallback);

/** A duration in whole milliseconds > 0. */
export const millis = (fallback: number) => positiveInt(fallback, "a whole number of milliseconds > 0");
