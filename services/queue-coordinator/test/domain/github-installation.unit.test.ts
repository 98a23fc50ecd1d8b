import { expect } from "chai";
import {
  applyInstallationChange,
  coversRepository,
  emptyInstallation,
  type GitHubInstallationState,
} from "../../src/domain/github-installation.js";

const facts = { accountLogin: "Acme", host: "github.com", at: "2026-01-01T00:00:00.000Z" };
const repo = (owner: string, name: string, host = "github.com") => ({ host, owner, name });

function mapped(
  change = applyInstallationChange(
    emptyInstallation(7, facts.at),
    { type: "CREATED", selection: "ALL", repositories: [] },
    facts,
  ),
): GitHubInstallationState {
  return { ...change, org: "acme" };
}

describe("GitHub installations: which organisation may act on which repository", () => {
  it("covers every repository of its account for the organisation it is mapped to, and nothing for another", () => {
    const s = mapped();
    expect(coversRepository(s, "acme", repo("acme", "app"))).to.equal(true);
    expect(coversRepository(s, "acme", repo("ACME", "App")), "GitHub names are case-insensitive").to.equal(
      true,
    );
    expect(coversRepository(s, "rival", repo("acme", "app"))).to.equal(false);
    expect(coversRepository(s, "acme", repo("other", "app"))).to.equal(false);
    expect(coversRepository(s, "acme", repo("acme", "app", "ghe.example.com"))).to.equal(false);
    expect(coversRepository({ ...s, org: "" }, "", repo("acme", "app")), "unmapped covers nothing").to.equal(
      false,
    );
  });

  it("with a selection, covers the listed repositories only, as installation_repositories events change it", () => {
    let s = mapped(
      applyInstallationChange(
        emptyInstallation(7, facts.at),
        { type: "CREATED", selection: "SELECTED", repositories: ["Acme/App"] },
        facts,
      ),
    );
    expect(coversRepository(s, "acme", repo("acme", "app"))).to.equal(true);
    expect(coversRepository(s, "acme", repo("acme", "lib"))).to.equal(false);
    s = applyInstallationChange(
      s,
      { type: "REPOSITORIES_CHANGED", selection: "SELECTED", added: ["acme/lib"], removed: ["acme/app"] },
      facts,
    );
    expect(coversRepository(s, "acme", repo("acme", "lib"))).to.equal(true);
    expect(coversRepository(s, "acme", repo("acme", "app"))).to.equal(false);
    const again = applyInstallationChange(
      s,
      { type: "REPOSITORIES_CHANGED", selection: "SELECTED", added: ["acme/lib"], removed: ["acme/app"] },
      facts,
    );
    expect(again.repositories, "a redelivered change changes nothing").to.deep.equal(s.repositories);
  });

  it("covers nothing while suspended or after it is uninstalled", () => {
    const s = mapped();
    const suspended = applyInstallationChange(s, { type: "SUSPENDED" }, facts);
    expect(coversRepository(suspended, "acme", repo("acme", "app"))).to.equal(false);
    expect(
      coversRepository(
        applyInstallationChange(suspended, { type: "UNSUSPENDED" }, facts),
        "acme",
        repo("acme", "app"),
      ),
    ).to.equal(true);
    expect(
      coversRepository(applyInstallationChange(s, { type: "DELETED" }, facts), "acme", repo("acme", "app")),
    ).to.equal(false);
  });
});
