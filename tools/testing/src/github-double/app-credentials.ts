import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from "node:crypto";

/** A GitHub App's identity as a test makes one: GitHub hands out PKCS#1 PEM private keys, so this does too. */
export interface TestAppCredentials {
  readonly appId: number;
  readonly privateKey: string;
  readonly publicKey: KeyObject;
}

export function makeTestAppCredentials(appId = 4242): TestAppCredentials {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  return { appId, privateKey, publicKey: createPublicKey(publicKey) };
}

/**
 * Why GitHub would refuse this App JWT, or undefined when it accepts it: RS256 signed by the App's key, issued by
 * the App, not expired, not issued in the future and valid for at most ten minutes (GitHub's rules for App JWTs).
 */
export function appJwtProblem(
  token: string,
  app: { appId: number; publicKey: KeyObject },
  nowSeconds: number,
): string | undefined {
  const [header, payload, signature, ...rest] = token.split(".");
  if (!header || !payload || !signature || rest.length > 0)
    return "the App JWT is not three dot-separated parts";
  const decode = (part: string) =>
    JSON.parse(Buffer.from(part, "base64url").toString("utf8")) as Record<string, unknown>;
  let claims: Record<string, unknown>;
  try {
    if (decode(header).alg !== "RS256") return "the App JWT is not RS256";
    claims = decode(payload);
  } catch {
    return "the App JWT is not base64url JSON";
  }
  const signed = verify(
    "RSA-SHA256",
    Buffer.from(`${header}.${payload}`),
    app.publicKey,
    Buffer.from(signature, "base64url"),
  );
  if (!signed) return "the App JWT's signature is not the App's key";
  if (String(claims.iss) !== String(app.appId))
    return `the App JWT's issuer ${String(claims.iss)} is not the App`;
  const iat = Number(claims.iat);
  const exp = Number(claims.exp);
  if (!Number.isFinite(iat) || !Number.isFinite(exp)) return "the App JWT lacks iat or exp";
  if (exp <= nowSeconds) return "the App JWT has expired";
  if (iat > nowSeconds + 60) return "the App JWT is issued in the future";
  if (exp - nowSeconds > 600 + 5) return "the App JWT is valid for more than ten minutes";
  return undefined;
}
