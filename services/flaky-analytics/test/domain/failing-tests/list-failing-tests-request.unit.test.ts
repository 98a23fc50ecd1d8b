import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import {
  checkListFailingTestsQuery,
  type ListFailingTestsQuery,
} from "../../../src/domain/failing-tests/index.js";

const valid: ListFailingTestsQuery = {
  org: "acme",
  repo: { host: "github.com", owner: "acme", name: "pay" },
  startTime: Date.UTC(2025, 2, 1),
  endTime: Date.UTC(2025, 2, 8),
  pageSize: 25,
  pageToken: undefined,
};

function rejection(query: ListFailingTestsQuery): { field: string; rule: string } {
  try {
    checkListFailingTestsQuery(query);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    const { field, rule } = error as InvalidArgumentError;
    return { field, rule };
  }
  throw new Error("expected the query to be rejected");
}

/** What the gRPC wire cannot say about a list-failing-tests query (the gateway's schema checked the JSON). */
describe("checkListFailingTestsQuery", () => {
  it("accepts a valid query, and treats an empty token as the first page", () => {
    expect(checkListFailingTestsQuery(valid)).to.deep.equal(valid);
    expect(checkListFailingTestsQuery({ ...valid, pageToken: "abc.def" }).pageToken).to.equal("abc.def");
    expect(checkListFailingTestsQuery({ ...valid, pageToken: "" }).pageToken).to.equal(undefined);
  });

  it("names each empty repository field and the organisation by the spec's names", () => {
    expect(rejection({ ...valid, repo: { ...valid.repo, host: "" } })).to.deep.equal({
      field: "repo.host",
      rule: "must be a non-empty string",
    });
    expect(rejection({ ...valid, repo: { ...valid.repo, owner: "  " } }).field).to.equal("repo.owner");
    expect(rejection({ ...valid, repo: { ...valid.repo, name: "" } }).field).to.equal("repo.name");
    expect(rejection({ ...valid, org: "" }).field).to.equal("org_url_slug");
  });

  it("requires both times", () => {
    expect(rejection({ ...valid, startTime: Number.NaN })).to.deep.equal({
      field: "start_time",
      rule: "is required",
    });
    expect(rejection({ ...valid, endTime: Number.NaN }).field).to.equal("end_time");
  });

  it("requires end after start, at most 7 days apart", () => {
    expect(rejection({ ...valid, endTime: valid.startTime })).to.deep.equal({
      field: "end_time",
      rule: "must be after start_time",
    });
    expect(rejection({ ...valid, endTime: valid.endTime + 1 })).to.deep.equal({
      field: "end_time",
      rule: "must be within 7 days of start_time",
    });
  });

  it("requires an integer page size from 1 to 100", () => {
    for (const pageSize of [0, 101, 2.5, -1]) {
      expect(rejection({ ...valid, pageSize })).to.deep.equal({
        field: "page_query.page_size",
        rule: "must be an integer from 1 to 100",
      });
    }
  });
});
