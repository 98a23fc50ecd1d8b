import type { Collection, Store } from "@mainline/kit/store/index";
import type { QuarantineOverride } from "../domain/index.js";
import type { TestAnnotationDocument } from "./documents.js";

/** A change to a test's annotations: a value sets it, null clears it, absent leaves it. */
export interface AnnotationChange {
  quarantineOverride?: QuarantineOverride | null;
  ticketUrl?: string | null;
}

/** Quarantine overrides and ticket links, one small document per annotated test. */
export class TestAnnotations {
  private constructor(private readonly annotations: Collection<TestAnnotationDocument>) {}

  static async open(store: Store): Promise<TestAnnotations> {
    const annotations = store.collection<TestAnnotationDocument>("test_annotations");
    await annotations.createIndex({ org: 1, repoKey: 1 });
    return new TestAnnotations(annotations);
  }

  forRepository(org: string, repoKey: string): Promise<TestAnnotationDocument[]> {
    return this.annotations.find({ org, repoKey });
  }

  async change(org: string, repoKey: string, testId: string, change: AnnotationChange): Promise<void> {
    const $set: Record<string, string> = {};
    const $unset: Record<string, ""> = {};
    for (const field of ["quarantineOverride", "ticketUrl"] as const) {
      const value = change[field];
      if (value === null) $unset[field] = "";
      else if (value !== undefined) $set[field] = value;
    }
    await this.annotations.updateOne(
      { _id: `${org}\n${repoKey}\n${testId}` },
      {
        $setOnInsert: { org, repoKey, testId },
        ...(Object.keys($set).length > 0 ? { $set } : {}),
        ...(Object.keys($unset).length > 0 ? { $unset } : {}),
      },
      { upsert: true },
    );
  }
}
