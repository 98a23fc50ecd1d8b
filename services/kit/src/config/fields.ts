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

/**
 * One NATS URL, or every node of a cluster separated by commas: the client tries them in turn and moves to
 * another when its node goes away (the cluster also tells it about the others once it is connected).
 */
export const natsUrl = z
  .string()
  .max(4096, "expected at most 4096 characters")
  .regex(
    /^(nats|tls|ws|wss):\/\/[^\s,]+(,(nats|tls|ws|wss):\/\/[^\s,]+)*$/,
    "expected a NATS URL such as nats://127.0.0.1:4222, or several separated by commas",
  )
  .default("nats://127.0.0.1:4222");

/** The servers the `nats` client takes from NATS_URL (it does not split a comma-separated string itself). */
export function natsServers(url: string): string[] {
  return url.split(",");
}

/** How many replicas JetStream keeps of every stream, bucket and object store: 1 on one node, 3 on a cluster. */
export const natsReplicas = z.coerce
  .number({ message: "expected a whole number from 1 to 5" })
  .int("expected a whole number from 1 to 5")
  .min(1, "expected a whole number from 1 to 5")
  .max(5, "expected a whole number from 1 to 5")
  .default(1);

export const optionalUrl = unsetIfEmpty(z.url({ message: "expected an absolute URL" }).optional());

export const logLevel = z
  .enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
    message: "expected one of fatal, error, warn, info, debug, trace, silent",
  })
  .default("info");

/**
 * The `host:port` address of another service, or several IPv4 `ip:port` separated by commas (its replicas, such
 * as `make dev` runs them): calls are then spread round-robin over those that answer (grpc-client.ts).
 */
export const address = (fallback: string) =>
  z
    .string()
    .max(1024, "expected at most 1024 characters")
    .regex(
      /^([^\s:,]+:\d{1,5}|\d{1,3}(\.\d{1,3}){3}:\d{1,5}(,\d{1,3}(\.\d{1,3}){3}:\d{1,5})+)$/,
      "expected host:port, e.g. 127.0.0.1:50051, or several ip:port separated by commas",
    )
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
  NATS_REPLICAS: natsReplicas,
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
