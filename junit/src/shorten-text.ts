/**
 * Keeps long captured output bounded: the head says what ran, the tail usually says why it
 * failed, so both ends are kept and the middle is dropped with a marker.
 */
export function shortenText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars / 4);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n… [${omitted} characters omitted] …\n${text.slice(text.length - tail)}`;
}
