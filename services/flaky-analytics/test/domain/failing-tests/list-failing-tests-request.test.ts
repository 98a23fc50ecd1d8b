import { expect } from "chai";
import { InvalidArgumentError } from "@mainline/kit/errors/index";
import { validateListFailingTestsRequest } from "../../../src/domain/failing-tests/index.js";

const valid = {
  repo: { host: "github.com", owner: "acme", name: "pay" },
  org_url_slug: "acme",
  start_time: "2025-03-01T00:00:00Z",
  end_time: "2025-03-08T00:00:00Z",
  page_query: { page_size: 25 },
};

function rejection(body: unknown): { field: string; rule: string } {
  try {
    validateListFailingTestsRequest(body);
  } catch (error) {
    expect(error).to.be.instanceOf(InvalidArgumentError);
    const { field, rule } = error as InvalidArgumentError;
    return { field, rule };
  }
  throw new Error("expected the request to be rejected");
}

describe("validateListFailingTestsRequest", () => {
  it("accepts a valid request and reads times as epoch ms", () => {
    expect(validateListFailingTestsRequest(valid)).to.deep.equal({
      org: "acme",
      repo: { host: "github.com", owner: "acme", name: "pay" },
      startTime: Date.UTC(2025, 2, 1),
      endTime: Date.UTC(2025, 2, 8),
      pageSize: 25,
      pageToken: undefined,
    });
  });

  it("accepts offsets, fractions, a token, and treats an empty token as the first page", () => {
    const query = validateListFailingTestsRequest({
      ...valid,
      start_time: "2025-03-01T02:00:00.250+02:00",
      end_time: "2025-03-01T01:00:00Z",
      page_query: { page_size: 1, page_token: "abc.def" },
    });
    expect(query.startTime).to.equal(Date.UTC(2025, 2, 1, 0, 0, 0, 250));
    expect(query.pageToken).to.equal("abc.def");
    expect(
      validateListFailingTestsRequest({ ...valid, page_query: { page_size: 100, page_token: "" } }).pageToken,
    ).to.be.undefined;
  });

  it("names each missing or empty repository field", () => {
    expect(rejection({ ...valid, repo: undefined })).to.deep.equal({ field: "repo", rule: "is required" });
    expect(rejection({ ...valid, repo: "acme/pay" })).to.deep.equal({
      field: "repo",
      rule: "must be a JSON object",
    });
    expect(rejection({ ...valid, repo: { owner: "acme", name: "pay" } })).to.deep.equal({
      field: "repo.host",
      rule: "is required",
    });
    expect(rejection({ ...valid, repo: { ...valid.repo, owner: "  " } }).field).to.equal("repo.owner");
    expect(rejection({ ...valid, repo: { ...valid.repo, name: 7 } }).field).to.equal("repo.name");
  });

  it("requires org_url_slug", () => {
    expect(rejection({ ...valid, org_url_slug: undefined })).to.deep.equal({
      field: "org_url_slug",
      rule: "is required",
    });
    expect(rejection({ ...valid, org_url_slug: "" }).field).to.equal("org_url_slug");
  });

  it("requires real RFC 3339 date-times", () => {
    expect(rejection({ ...valid, start_time: undefined })).to.deep.equal({
      field: "start_time",
      rule: "is required",
    });
    for (const bad of [
      "2025-03-01",
      "yesterday",
      "2025-03-01T00:00:00",
      "2025-02-30T00:00:00Z",
      "2025-13-01T00:00:00Z",
      1740787200000,
    ]) {
      expect(rejection({ ...valid, start_time: bad }).field, String(bad)).to.equal("start_time");
    }
    expect(rejection({ ...valid, end_time: "2025-03-08T25:00:00Z" }).field).to.equal("end_time");
  });

  it("requires end after start, at most 7 days apart", () => {
    expect(rejection({ ...valid, end_time: valid.start_time })).to.deep.equal({
      field: "end_time",
      rule: "must be after start_time",
    });
    expect(rejection({ ...valid, end_time: "2025-03-08T00:00:00.001Z" })).to.deep.equal({
      field: "end_time",
      rule: "must be within 7 days of start_time",
    });
  });

  it("requires page_query with an integer page_size from 1 to 100", () => {
    expect(rejection({ ...valid, page_query: undefined })).to.deep.equal({
      field: "page_query",
      rule: "is required",
    });
    expect(rejection({ ...valid, page_query: {} })).to.deep.equal({
      field: "page_query.page_size",
      rule: "is required",
    });
    for (const size of [0, 101, 2.5, "10", -1]) {
      expect(rejection({ ...valid, page_query: { page_size: size } })).to.deep.equal({
        field: "page_query.page_size",
        rule: "must be an integer from 1 to 100",
      });
    }
    expect(rejection({ ...valid, page_query: { page_size: 10, page_token: 3 } }).field).to.equal(
      "page_query.page_token",
    );
  });

  it("rejects a body that is not an object", () => {
    expect(rejection(null)).to.deep.equal({ field: "body", rule: "must be a JSON object" });
    expect(rejection([valid]).field).to.equal("body");
  });
});
