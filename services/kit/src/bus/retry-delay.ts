/**
 * Delay before redelivering a message whose handler failed with a retryable error on delivery
 * `deliveryCount` (1-based): the consumer's backoff entry for that delivery, the last entry
 * repeating, or the fallback when the consumer has no backoff list.
 */
export function retryDelayForDelivery(
  backoffMs: readonly number[],
  deliveryCount: number,
  fallbackMs: number,
): number {
  if (backoffMs.length === 0) return fallbackMs;
  const index = Math.min(Math.max(deliveryCount, 1), backoffMs.length) - 1;
  return backoffMs[index] ?? fallbackMs;
}
