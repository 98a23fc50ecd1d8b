import { QUEUE_SETTING_RANGES } from "@mainline/contract";

/** The bound of every string and number the API takes, and the request fields built on them: the contract's. */
export { boundedText, branchName, identifier, intInRange, LIMITS, prNumber } from "@mainline/contract";

/** Integer settings and their ranges, named in the 400 a value outside them gets. */
export const RANGES = QUEUE_SETTING_RANGES;
