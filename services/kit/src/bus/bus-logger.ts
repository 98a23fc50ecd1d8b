/**
 * The little the bus needs from a logger; pino's `logger.warn(obj, msg)` fits it as it is,
 * so services pass their pino logger and bus lines carry the service's bindings.
 */
export interface BusLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** Used when no logger is given: failures still reach stderr rather than vanishing. */
export const consoleBusLogger: BusLogger = {
  warn: (obj, msg) => console.warn(msg, obj),
  error: (obj, msg) => console.error(msg, obj),
};
