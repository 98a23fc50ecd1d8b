import { fileURLToPath } from "node:url";
import { RuleTester, type Rule } from "eslint";
import tseslint from "typescript-eslint";
// @ts-expect-error: the rules are plain JavaScript that ESLint's config loads as it is; they have no declarations.
import { domainLoadsNoIo } from "../../eslint-rules/domain-loads-no-io.js";
// @ts-expect-error: as above.
import { createMainlineResolver } from "../../eslint-rules/module-imports.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
type Resolve = (specifier: string, file: string) => unknown;
const resolver = (createMainlineResolver as () => { resolve: Resolve })();
const rule = (domainLoadsNoIo as (resolve: Resolve) => Rule.RuleModule)((specifier, file) =>
  resolver.resolve(specifier, file),
);

// A domain file of a real service, so that its imports resolve to the real modules they name.
const filename = `${root}services/webhooks/src/domain/example.ts`;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

describe("ESLint: a domain/ file loads no I/O library, not even through a barrel", () => {
  tester.run("mainline/domain-loads-no-io", rule, {
    valid: [
      // kit's errors carry no gRPC status table any more.
      { filename, code: 'import { InvalidArgumentError } from "@mainline/kit/errors/index";' },
      { filename, code: 'import { PullRequestState } from "@mainline/proto/queue/messages";' },
      // Types are erased: they load nothing.
      { filename, code: 'import type { QueueCoordinatorClient } from "@mainline/proto/queue";' },
      { filename, code: 'import { type QueueCoordinatorClient } from "@mainline/proto/queue";' },
      { filename, code: 'export type { QueueCoordinatorClient } from "@mainline/proto/queue";' },
      // Other domain code, and libraries that are computation.
      {
        filename,
        code: 'import { pullRequestWebhookEvent } from "./webhook-event.js";\nimport { z } from "zod";',
      },
    ],
    invalid: [
      {
        // The barrel re-exports the gRPC service definitions, which load @grpc/grpc-js.
        filename,
        code: 'import { PullRequestState } from "@mainline/proto/queue";',
        errors: [
          {
            messageId: "loadsIo",
            data: {
              io: "@grpc/grpc-js",
              chain: "@mainline/proto/queue → ./gen/mainline/queue/v1/queue_service.js → @grpc/grpc-js",
            },
          },
        ],
      },
      {
        filename,
        code: 'export * from "@mainline/proto/flaky";',
        errors: [{ message: /loads @grpc\/grpc-js \(@mainline\/proto\/flaky → / }],
      },
      {
        // Through a shell folder of the same service (delivery/ sends HTTP).
        filename,
        code: 'import "../delivery/http-sender.js";',
        errors: [
          { message: /^domain\/ is pure, but this import loads .* \(\.\.\/delivery\/http-sender\.js → / },
        ],
      },
    ],
  });
});
