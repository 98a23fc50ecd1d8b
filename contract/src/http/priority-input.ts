import { z } from "zod";
import { PRIORITY_NAMES, PRIORITY_RANGE, PRIORITY_RULE } from "../priority.js";

/** The API's `priority`: a level's name in any case, or an integer 0..255. */
export const priorityInput = z.union(
  [
    z.preprocess((v) => (typeof v === "string" ? v.toLowerCase() : v), z.enum(PRIORITY_NAMES)),
    z.int().min(PRIORITY_RANGE.min).max(PRIORITY_RANGE.max),
  ],
  { error: `must be one of ${PRIORITY_RULE}` },
);
