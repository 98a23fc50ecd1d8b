import { z } from "zod";
import { commonConfig, port } from "@mainline/kit/config/index";

export const configSchema = z.object({
  ...commonConfig,
  GRPC_PORT: port(50053),
});
export type Config = z.infer<typeof configSchema>;
