import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { TEST_AWARE_QUEUE_SETTINGS, type TestAwareQueueSetting } from "@mainline/contract";
import { TestAwareSwitch } from "@mainline/proto/queue";
import type { QueueSettings } from "../domain/index.js";

/**
 * The wire's words for a test-aware setting (issue 26): the domain's null (follow the repository's quarantining),
 * true and false. Absent in settings stored before the setting existed: follow.
 */
export function testAwareSwitchToProto(value: boolean | null | undefined): TestAwareSwitch {
  if (value === true) return TestAwareSwitch.ON;
  if (value === false) return TestAwareSwitch.OFF;
  return TestAwareSwitch.FOLLOW_QUARANTINING;
}

export function testAwareSwitchesToProto(
  s: Readonly<QueueSettings>,
): Record<TestAwareQueueSetting, TestAwareSwitch> {
  return {
    ignoreQuarantinedTests: testAwareSwitchToProto(s.ignoreQuarantinedTests),
    retryKnownFlakyTests: testAwareSwitchToProto(s.retryKnownFlakyTests),
    holdOnBrokenTarget: testAwareSwitchToProto(s.holdOnBrokenTarget),
  };
}

function ofProto(field: string, value: TestAwareSwitch): boolean | null {
  if (value === TestAwareSwitch.ON) return true;
  if (value === TestAwareSwitch.OFF) return false;
  if (value === TestAwareSwitch.FOLLOW_QUARANTINING) return null;
  throw new InvalidArgumentError(field, "must be ON, OFF or FOLLOW_QUARANTINING");
}

/** Splits an UpdateQueueRequest's test-aware switches, in the domain's words, from its other fields. */
export function splitTestAwareSwitches<T extends Partial<Record<TestAwareQueueSetting, TestAwareSwitch>>>(
  req: T,
): {
  testAware: Partial<Record<TestAwareQueueSetting, boolean | null>>;
  rest: Omit<T, TestAwareQueueSetting>;
} {
  const rest: Record<string, unknown> = { ...req };
  const testAware: Partial<Record<TestAwareQueueSetting, boolean | null>> = {};
  for (const field of TEST_AWARE_QUEUE_SETTINGS) {
    const value = req[field];
    delete rest[field];
    if (value !== undefined) testAware[field] = ofProto(field, value);
  }
  return { testAware, rest: rest as Omit<T, TestAwareQueueSetting> };
}
