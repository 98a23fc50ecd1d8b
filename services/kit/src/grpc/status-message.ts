/**
 * A gRPC status message travels percent-encoded in the `grpc-message` trailer; grpc-js encodes it with
 * encodeURI, which throws on a lone surrogate, and it throws outside any handler's reach, so one message
 * quoting a cut-off emoji from user input would end the process. Messages also quote user values, so
 * they are bounded: a status is a sentence, not a copy of the request.
 */
export const MAX_STATUS_MESSAGE_LENGTH = 1024;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function safeStatusMessage(message: string): string {
  let text = message;
  if (text.length > MAX_STATUS_MESSAGE_LENGTH) {
    // Cut before a high surrogate rather than through a pair.
    let end = MAX_STATUS_MESSAGE_LENGTH - 1;
    const code = text.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end -= 1;
    text = `${text.slice(0, end)}…`;
  }
  return text.replace(LONE_SURROGATE, "\uFFFD");
}
