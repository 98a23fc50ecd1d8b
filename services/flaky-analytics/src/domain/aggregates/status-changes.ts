import type { TestStatusValue } from "../status/test-status.js";
import { DAY_MS } from "../durations.js";

/**
 * A test's status changes, oldest first, each one number: the time it took effect (epoch ms) * 4 + the new
 * value's code. Status changes are rare (a test turns flaky, later healthy), so this stays a few numbers per
 * test; it is what "flaky and broken tests over time" counts from, without a record per result.
 */
export type StatusChanges = readonly number[];

const CODES: readonly TestStatusValue[] = ["healthy", "flaky", "broken"];

/** How long a change is kept: the longest insights period, plus the one before it (the state the window opens in). */
const KEEP_MS = 91 * DAY_MS;

export function packChange(at: number, value: TestStatusValue): number {
  return Math.max(0, Math.floor(at)) * 4 + CODES.indexOf(value);
}

export function changeAt(change: number): number {
  return Math.floor(change / 4);
}

export function changeValue(change: number): TestStatusValue {
  return CODES[change % 4] as TestStatusValue;
}

/** `changes` with the test entering `value` at `at`, in time order; changes no window can reach any more go. */
export function withStatusChange(
  changes: StatusChanges,
  at: number,
  value: TestStatusValue,
  now: number,
): StatusChanges {
  const packed = packChange(at, value);
  const next = [...changes];
  let i = next.length;
  while (i > 0 && (next[i - 1] as number) > packed) i--;
  next.splice(i, 0, packed);
  const oldest = now - KEEP_MS;
  let drop = 0;
  // Keep the last change before the oldest window: it says what state the window opens in.
  while (drop + 1 < next.length && changeAt(next[drop + 1] as number) <= oldest) drop++;
  return drop === 0 ? next : next.slice(drop);
}

/**
 * Counts, per bucket of a window, the tests that were flaky (or broken) at some time within the bucket. Tests
 * are added one by one (each its changes); buckets are `count` spans of `bucketMs` from `start`.
 */
export class StatusTally {
  private readonly flakyDelta: Int32Array;
  private readonly brokenDelta: Int32Array;

  constructor(
    private readonly start: number,
    private readonly bucketMs: number,
    private readonly count: number,
  ) {
    this.flakyDelta = new Int32Array(count + 1);
    this.brokenDelta = new Int32Array(count + 1);
  }

  /** One test's changes, oldest first; the last state lasts until the window's end. */
  add(changes: StatusChanges): void {
    // The last bucket already counted per state: flaky, healthy, flaky again within one bucket counts once.
    const counted = { flaky: -1, broken: -1 };
    for (let i = 0; i < changes.length; i++) {
      const change = changes[i] as number;
      const value = changeValue(change);
      if (value === "healthy") continue;
      const from = changeAt(change);
      const next = changes[i + 1];
      const to = next === undefined ? Number.POSITIVE_INFINITY : changeAt(next);
      const delta = value === "flaky" ? this.flakyDelta : this.brokenDelta;
      counted[value] = this.mark(delta, from, to, counted[value]);
    }
  }

  /** Counts per bucket, oldest first. */
  result(): { flaky: number[]; broken: number[] } {
    return {
      flaky: runningSum(this.flakyDelta, this.count),
      broken: runningSum(this.brokenDelta, this.count),
    };
  }

  /** The state held during [from, to): every bucket it overlaps counts the test once. */
  private mark(delta: Int32Array, from: number, to: number, counted: number): number {
    const end = this.start + this.count * this.bucketMs;
    if (to <= this.start || from >= end || to <= from) return counted;
    const first = Math.max(counted + 1, Math.floor((from - this.start) / this.bucketMs), 0);
    const last = Math.min(this.count - 1, Math.floor((Math.min(to, end) - 1 - this.start) / this.bucketMs));
    if (first > last) return counted;
    delta[first] = (delta[first] as number) + 1;
    delta[last + 1] = (delta[last + 1] as number) - 1;
    return last;
  }
}

function runningSum(delta: Int32Array, count: number): number[] {
  const counts: number[] = [];
  let sum = 0;
  for (let i = 0; i < count; i++) {
    sum += delta[i] as number;
    counts.push(sum);
  }
  return counts;
}
