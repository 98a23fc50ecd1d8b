import { expect } from "chai";
import { makeGenericClientConstructor, type Client, type ServiceDefinition } from "@grpc/grpc-js";
import { createLogger } from "../../src/logging/index.js";
import {
  callUnary,
  checkGrpcHealth,
  createGrpcClient,
  startGrpcServer,
  toGrpcImplementation,
  type GrpcServerHandle,
  type UnaryMethod,
} from "../../src/grpc/index.js";

const json = {
  serialize: (value: unknown) => Buffer.from(JSON.stringify(value)),
  deserialize: (bytes: Buffer) => JSON.parse(bytes.toString()) as unknown,
};
/** Answers with the name of the replica that served the call. */
const WhoService = {
  who: {
    path: "/test.Who/Who",
    requestStream: false,
    responseStream: false,
    requestSerialize: json.serialize,
    requestDeserialize: json.deserialize,
    responseSerialize: json.serialize,
    responseDeserialize: json.deserialize,
  },
} satisfies ServiceDefinition;
type WhoClient = Client & { who: UnaryMethod<object, { replica: string }> };
const WhoClientCtor = makeGenericClientConstructor(WhoService, "Who") as unknown as new (
  ...args: ConstructorParameters<ReturnType<typeof makeGenericClientConstructor>>
) => WhoClient;

async function startReplica(replica: string): Promise<GrpcServerHandle> {
  const implementation = toGrpcImplementation<{ who: () => Promise<{ replica: string }> }>(
    { who: () => Promise.resolve({ replica }) },
    createLogger("test", "silent"),
  );
  const server = await startGrpcServer({
    host: "127.0.0.1",
    port: 0,
    services: [{ definition: WhoService, implementation }],
  });
  server.setServing(true);
  return server;
}

describe("gRPC calls to a service's replicas (an *_ADDR listing several)", () => {
  let replicas: GrpcServerHandle[];
  let client: WhoClient;

  before(async () => {
    replicas = [await startReplica("a"), await startReplica("b")];
    client = createGrpcClient(WhoClientCtor, replicas.map((r) => `127.0.0.1:${r.port}`).join(","));
  });
  after(async () => {
    client.close();
    await Promise.all(replicas.map((r) => r.shutdown(100)));
  });

  it("spreads calls over every replica", async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 20; i += 1) seen.add((await callUnary(client.who.bind(client), {})).replica);
    expect([...seen].sort()).to.deep.equal(["a", "b"]);
  });

  it("is ready while one replica serves, and not when none does", async () => {
    const addresses = replicas.map((r) => `127.0.0.1:${r.port}`).join(",");
    replicas[0]!.setServing(false);
    expect(await checkGrpcHealth(addresses)).to.equal(true);
    replicas[1]!.setServing(false);
    expect(await checkGrpcHealth(addresses)).to.equal(false);
    replicas.forEach((r) => r.setServing(true));
  });

  it("keeps answering from the other replica once one is gone", async () => {
    await replicas[0]!.shutdown(100);
    const answers: string[] = [];
    for (let i = 0; i < 10; i += 1) answers.push((await callUnary(client.who.bind(client), {})).replica);
    expect(answers).to.deep.equal(Array(10).fill("b"));
  });
});
