import type { Collection, Store } from "@mainline/kit/store/index";
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from "@mainline/kit/errors/index";
import { apiTokenId, generateApiToken, hashApiToken } from "./api-token.js";
import { PrincipalCache } from "./principal-cache.js";
import type { Principal } from "./principal.js";

interface OrganizationDocument {
  _id: string; // the slug
  name: string;
  createdAt: string;
}

interface ApiTokenDocument {
  _id: string; // the token id
  org: string;
  hash: string;
  description: string;
  /** Admin tokens may manage organisations and the tokens of any organisation. */
  admin: boolean;
  createdAt: string;
  revokedAt?: string | null;
}

export interface TokenSummary {
  id: string;
  org: string;
  description: string;
  admin: boolean;
  createdAt: string;
  revokedAt: string | null;
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export const DEFAULT_AUTH_CACHE_TTL_MS = 5_000;

/** Organisations and API tokens, owned by the gateway (it is the only reader and writer). */
export class AuthRepository {
  private constructor(
    private readonly organizations: Collection<OrganizationDocument>,
    private readonly tokens: Collection<ApiTokenDocument>,
    private readonly principals: PrincipalCache,
  ) {}

  /**
   * `cacheTtlMs`: how long an authenticated token is trusted without a store lookup (0: never). A token revoked
   * through another gateway replica keeps working here for at most that long.
   */
  static async open(
    store: Store,
    options: { cacheTtlMs?: number; now?: () => number } = {},
  ): Promise<AuthRepository> {
    const tokens = store.collection<ApiTokenDocument>("api_tokens");
    await tokens.createIndex({ hash: 1 }, { unique: true });
    await tokens.createIndex({ org: 1 });
    return new AuthRepository(
      store.collection<OrganizationDocument>("organizations"),
      tokens,
      new PrincipalCache(options.cacheTtlMs ?? DEFAULT_AUTH_CACHE_TTL_MS, options.now),
    );
  }

  async createOrganization(
    slug: string,
    name: string,
    now = new Date(),
  ): Promise<{ slug: string; name: string }> {
    if (!SLUG.test(slug)) {
      throw new InvalidArgumentError(
        "slug",
        "must be 1-63 lowercase letters, digits or dashes, starting with a letter or digit",
      );
    }
    if (await this.organizations.findOne({ _id: slug }))
      throw new AlreadyExistsError(`organization ${slug} already exists`);
    await this.organizations.insertOne({ _id: slug, name: name || slug, createdAt: now.toISOString() });
    return { slug, name: name || slug };
  }

  async listOrganizations(): Promise<{ slug: string; name: string }[]> {
    const docs = await this.organizations.find({}, { sort: { _id: 1 } });
    return docs.map((d) => ({ slug: d._id, name: d.name }));
  }

  async createToken(
    org: string,
    description: string,
    admin: boolean,
    now = new Date(),
  ): Promise<{ token: string; summary: TokenSummary }> {
    await this.requireOrganization(org);
    const { id, token, hash } = generateApiToken();
    const doc: ApiTokenDocument = {
      _id: id,
      org,
      hash,
      description,
      admin,
      createdAt: now.toISOString(),
      revokedAt: null,
    };
    await this.tokens.insertOne(doc);
    return { token, summary: summarize(doc) };
  }

  /** Makes a given token valid for an organisation (creating it); used to seed the dev token. Idempotent. */
  async seedToken(org: string, token: string, admin: boolean, now = new Date()): Promise<void> {
    if (!(await this.organizations.findOne({ _id: org }))) {
      await this.organizations
        .insertOne({ _id: org, name: org, createdAt: now.toISOString() })
        .catch((e: unknown) => {
          if (!(e instanceof AlreadyExistsError)) throw e;
        });
    }
    const hash = hashApiToken(token);
    if (await this.tokens.findOne({ hash })) return;
    await this.tokens
      .insertOne({
        _id: apiTokenId(token),
        org,
        hash,
        description: "seeded",
        admin,
        createdAt: now.toISOString(),
        revokedAt: null,
      })
      .catch((e: unknown) => {
        if (!(e instanceof AlreadyExistsError)) throw e;
      });
  }

  async listTokens(org: string): Promise<TokenSummary[]> {
    const docs = await this.tokens.find({ org }, { sort: { createdAt: 1 } });
    return docs.map(summarize);
  }

  async revokeToken(org: string, tokenId: string, now = new Date()): Promise<void> {
    const result = await this.tokens.updateOne(
      { _id: tokenId, org, revokedAt: null },
      { $set: { revokedAt: now.toISOString() } },
    );
    // Dropped even when nothing matched: a stale entry must never outlive a revocation attempt here.
    this.principals.forgetToken(tokenId);
    if (result.matchedCount === 0)
      throw new NotFoundError(`token ${tokenId} of organization ${org} does not exist or is already revoked`);
  }

  /** The principal a presented token stands for, or undefined when it is unknown or revoked. */
  async authenticate(token: string): Promise<Principal | undefined> {
    return this.authenticateHash(hashApiToken(token));
  }

  /** As authenticate, from the token's hash (a web session carries the hash, never the token). */
  async authenticateHash(hash: string): Promise<Principal | undefined> {
    const cached = this.principals.get(hash);
    if (cached) return cached;
    const started = this.principals.lookupStarted();
    const doc = await this.tokens.findOne({ hash });
    if (!doc || doc.revokedAt) return undefined;
    const principal = { org: doc.org, tokenId: doc._id, admin: doc.admin };
    this.principals.set(hash, principal, started);
    return principal;
  }

  private async requireOrganization(org: string): Promise<void> {
    if (!(await this.organizations.findOne({ _id: org })))
      throw new NotFoundError(`organization ${org} does not exist`);
  }
}

function summarize(doc: ApiTokenDocument): TokenSummary {
  return {
    id: doc._id,
    org: doc.org,
    description: doc.description,
    admin: doc.admin,
    createdAt: doc.createdAt,
    revokedAt: doc.revokedAt ?? null,
  };
}
