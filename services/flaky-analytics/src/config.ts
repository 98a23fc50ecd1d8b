import { z } from "zod";
import { commonConfig, port } from "@mainline/kit/config/index";

/** Signs list-failing-tests page tokens; production must set its own (a token signed with the dev key is forgeable). */
export const DEV_PAGE_TOKEN_KEY = "mainline-dev-page-token-key-change-me";

export const configSchema = z.object({
  ...commonConfig,
  GRPC_PORT: port(50053),
  FLAKY_PAGE_TOKEN_KEY: z
    .string()
    .min(16, "expected a secret of at least 16 characters")
    .default(DEV_PAGE_TOKEN_KEY),
  /** Where users reach Mainline; test records link there (html_url). */
  MAINLINE_PUBLIC_URL: z
    .url({ message: "expected an absolute URL such as https://mainline.example.com" })
    .default("http://127.0.0.1:8080"),
});
export type Config = z.infer<typeof configSchema>;
