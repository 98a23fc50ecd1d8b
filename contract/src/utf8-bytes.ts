const encoder = new TextEncoder();

/** A text's length in UTF-8 bytes: store keys and NATS subjects are bounded in bytes. No Buffer, so the web page can use it. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).length;
}
