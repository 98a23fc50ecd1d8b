import type { Command } from "commander";
import type { Organization, TokenSummary } from "../api/api-types.js";
import type { CliContext } from "../cli-context.js";
import { formatTable } from "../output/table.js";

/** `mainline admin org|token`: organisations (admin tokens only) and API tokens. */
export function registerAdminCommands(program: Command, cli: CliContext): void {
  const admin = program.command("admin").description("organisations and API tokens");

  const org = admin.command("org").alias("orgs").description("organisations (needs an admin token)");
  org
    .command("create")
    .description("create an organisation")
    .argument("<slug>", "its short name, used in URLs and test ids")
    .option("--name <name>", "its display name (default: the slug)")
    .action(async (slug: string, opts: { name?: string }, command: Command) => {
      const created = await cli
        .api()
        .post<Organization>("/admin/organizations", { slug, ...(opts.name ? { name: opts.name } : {}) });
      cli.output(command).result(created, () => `Created organisation ${created.slug} (${created.name})`);
    });
  org
    .command("list")
    .description("list organisations")
    .action(async (_opts: unknown, command: Command) => {
      const { organizations } = await cli
        .api()
        .get<{ organizations: Organization[] }>("/admin/organizations");
      cli.output(command).result({ organizations }, () =>
        formatTable(
          ["SLUG", "NAME"],
          organizations.map((o) => [o.slug, o.name]),
        ),
      );
    });

  const token = admin.command("token").alias("tokens").description("API tokens");
  token
    .command("create")
    .description("create an API token (shown once)")
    .option("--org <slug>", "for another organisation (admin tokens only; default: this token's)")
    .option("--description <text>", "what the token is for", "")
    .option("--admin", "an admin token (admin tokens only)")
    .action(async (opts: { org?: string; description: string; admin?: boolean }, command: Command) => {
      const created = await cli.api().post<{ token: string; summary: TokenSummary }>("/admin/tokens", {
        ...(opts.org ? { org: opts.org } : {}),
        description: opts.description,
        admin: Boolean(opts.admin),
      });
      cli
        .output(command)
        .result(created, () => [
          `Created token ${created.summary.id} for ${created.summary.org}${created.summary.admin ? " (admin)" : ""}.`,
          `Keep it now, it is not shown again:`,
          created.token,
        ]);
    });
  token
    .command("list")
    .description("list API tokens (never the tokens themselves)")
    .option("--org <slug>", "another organisation's (admin tokens only)")
    .action(async (opts: { org?: string }, command: Command) => {
      const { tokens } = await cli.api().get<{ tokens: TokenSummary[] }>("/admin/tokens", { org: opts.org });
      cli.output(command).result({ tokens }, () =>
        formatTable(
          ["ID", "ORG", "ADMIN", "CREATED", "REVOKED", "DESCRIPTION"],
          tokens.map((t) => [
            t.id,
            t.org,
            t.admin ? "yes" : "no",
            t.createdAt,
            t.revokedAt ?? "-",
            t.description,
          ]),
        ),
      );
    });
  token
    .command("revoke")
    .description("revoke an API token by its id")
    .argument("<id>", "the token id (from token list)")
    .option("--org <slug>", "another organisation's (admin tokens only)")
    .action(async (id: string, opts: { org?: string }, command: Command) => {
      await cli.api().post("/admin/tokens/revoke", { id, ...(opts.org ? { org: opts.org } : {}) });
      cli.output(command).result({ revoked: id }, () => `Revoked token ${id}`);
    });
}
