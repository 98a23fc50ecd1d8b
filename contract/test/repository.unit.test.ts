import { expect } from "chai";
import { formatRepository, parseRepository, repositoryKey, sameRepository } from "../src/index.js";

describe("contract: repository", () => {
  it("parses host/owner/name and web addresses, nested owners included, and writes it back as given", () => {
    const app = { host: "github.com", owner: "acme", name: "app" };
    expect(parseRepository("github.com/acme/app")).to.deep.equal(app);
    expect(parseRepository("https://github.com/acme/app.git")).to.deep.equal(app);
    expect(parseRepository("github.com/acme/app/")).to.deep.equal(app);
    const nested = parseRepository("gitlab.com/acme/platform/app");
    expect(nested).to.deep.equal({ host: "gitlab.com", owner: "acme/platform", name: "app" });
    expect(formatRepository(nested!)).to.equal("gitlab.com/acme/platform/app");
  });

  it("refuses fewer than three parts, an empty part or white space", () => {
    for (const bad of ["acme/app", "github.com//app", "github.com/ac me/app", ""])
      expect(parseRepository(bad), bad).to.equal(undefined);
  });

  it("one repository whatever the case of its spelling; the spelling itself keeps its case", () => {
    const a = { host: "GitHub.com", owner: "Acme", name: "App" };
    expect(sameRepository(a, { host: "github.com", owner: "acme", name: "app" })).to.equal(true);
    expect(repositoryKey(a)).to.equal("github.com/acme/app");
    expect(formatRepository(a)).to.equal("GitHub.com/Acme/App");
  });
});
