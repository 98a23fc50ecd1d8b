import type { TokenSummary } from "../api/api-types.js";
import type { MainlineApi } from "../api/mainline-api.js";
import { CliError } from "../cli-error.js";

/** Test ids and list-failing-tests need the organisation's slug; the token's own summary names it. */
export async function organisationOfToken(api: MainlineApi): Promise<string> {
  const { tokens } = await api.get<{ tokens: TokenSummary[] }>("/admin/tokens");
  const org = tokens[0]?.org;
  if (!org) throw new CliError("could not tell the token's organisation: give --org <slug>");
  return org;
}
