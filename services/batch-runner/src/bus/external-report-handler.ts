import type { DeliveryHandler } from "@mainline/kit/bus/index";
import type { ExternalTestRunReported } from "@mainline/proto/queue";
import { assertRunId } from "../git/ref-names.js";
import type { ExternalReportBoard } from "./external-report-board.js";

/**
 * Takes a report off the jobs stream (one replica per report) and posts it on the board, where
 * the replica running that test run, whichever it is, picks it up. A report naming no valid run
 * id can never be matched, so it is terminated (InvalidArgumentError) with the reason logged.
 */
export function externalReportHandler(board: ExternalReportBoard): DeliveryHandler<ExternalTestRunReported> {
  return async ({ data }) => {
    assertRunId("testRunId", data.testRunId);
    await board.post(data);
  };
}
