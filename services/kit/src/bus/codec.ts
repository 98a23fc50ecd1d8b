/**
 * How a bus payload becomes bytes and back. The shape is the one ts-proto generates for every
 * protobuf message (`Message.encode(m).finish()`, `Message.decode(bytes)`), so a generated
 * message object is a codec as it stands: `publish(js, subject, TestRunRequested, message, ...)`.
 */
export interface MessageCodec<T> {
  encode(message: T): { finish(): Uint8Array };
  decode(input: Uint8Array): T;
}

const encoder = new TextEncoder();
// fatal: a payload that is not UTF-8 is a decode error (the consumer terminates it), not mojibake.
const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * JSON payloads, for tests and simple internal messages. There is no schema check: the decoded
 * value is whatever the JSON says, cast to T, so keep it to payloads this code base writes itself.
 */
export function jsonCodec<T>(): MessageCodec<T> {
  return {
    encode(message: T) {
      const bytes = encoder.encode(JSON.stringify(message));
      return { finish: () => bytes };
    },
    decode(input: Uint8Array): T {
      return JSON.parse(decoder.decode(input)) as T;
    },
  };
}
