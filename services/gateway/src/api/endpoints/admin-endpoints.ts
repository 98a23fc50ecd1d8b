import { z } from "zod";
import { PermissionDeniedError } from "@mainline/kit/errors/index";
import type { AuthRepository } from "../../auth/auth-repository.js";
import { endpoint, type Endpoint } from "../endpoint.js";
import { boundedText, identifier, LIMITS } from "../schemas/limits.js";

const TAG = "Administration";
const organization = z.object({ slug: z.string(), name: z.string() });
const tokenSummary = z.object({
  id: z.string(),
  org: z.string(),
  description: z.string(),
  admin: z.boolean(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});

/**
 * Organisations and API tokens. Admin tokens manage any organisation; an ordinary token may list and revoke
 * its own organisation's tokens but not create admin ones.
 */
export function adminEndpoints(auth: AuthRepository): Endpoint[] {
  return [
    endpoint({
      method: "post",
      path: "/admin/organizations",
      operationId: "createOrganization",
      summary: "Create an organisation",
      tag: TAG,
      access: "admin",
      input: z.object({
        slug: boundedText("the organisation's slug", LIMITS.slug),
        name: z.string().max(200, "must be at most 200 characters").optional(),
      }),
      inputIn: "body",
      output: organization,
      status: 201,
      handle: (input) => auth.createOrganization(input.slug, input.name ?? input.slug),
    }),
    endpoint({
      method: "get",
      path: "/admin/organizations",
      operationId: "listOrganizations",
      summary: "List organisations",
      tag: TAG,
      access: "admin",
      input: z.object({}),
      inputIn: "query",
      output: z.object({ organizations: z.array(organization) }),
      handle: async () => ({ organizations: await auth.listOrganizations() }),
    }),
    endpoint({
      method: "post",
      path: "/admin/tokens",
      operationId: "createToken",
      errors: [403],
      summary: "Create an API token; the token is shown once, in this response",
      tag: TAG,
      access: "org",
      input: z.object({
        org: boundedText("an organisation's slug", LIMITS.slug).optional(),
        description: z.string().max(200, "must be at most 200 characters").default(""),
        admin: z.boolean().default(false),
      }),
      inputIn: "body",
      output: z.object({ token: z.string(), summary: tokenSummary }),
      status: 201,
      async handle(input, { principal }) {
        const org = input.org ?? principal.org;
        if (!principal.admin && (org !== principal.org || input.admin)) {
          throw new PermissionDeniedError(
            "only an admin token may create tokens for another organization or admin tokens",
          );
        }
        return auth.createToken(org, input.description, input.admin);
      },
    }),
    endpoint({
      method: "get",
      path: "/admin/tokens",
      operationId: "listTokens",
      errors: [403],
      summary: "List the API tokens of an organisation (never the tokens themselves)",
      tag: TAG,
      access: "org",
      input: z.object({ org: boundedText("an organisation's slug", LIMITS.slug).optional() }),
      inputIn: "query",
      output: z.object({ tokens: z.array(tokenSummary) }),
      async handle(input, { principal }) {
        const org = input.org ?? principal.org;
        if (!principal.admin && org !== principal.org)
          throw new PermissionDeniedError("only an admin token may list another organization's tokens");
        return { tokens: await auth.listTokens(org) };
      },
    }),
    endpoint({
      method: "post",
      path: "/admin/tokens/revoke",
      operationId: "revokeToken",
      errors: [403],
      summary: "Revoke an API token by its id",
      tag: TAG,
      access: "org",
      input: z.object({
        id: identifier("the token's id"),
        org: boundedText("an organisation's slug", LIMITS.slug).optional(),
      }),
      inputIn: "body",
      output: z.object({}),
      async handle(input, { principal }) {
        const org = input.org ?? principal.org;
        if (!principal.admin && org !== principal.org)
          throw new PermissionDeniedError("only an admin token may revoke another organization's tokens");
        await auth.revokeToken(org, input.id);
        return {};
      },
    }),
  ];
}
