import { expect } from "chai";
import { createLogger } from "../../src/logging/index.js";
import { Shutdown, SHUTDOWN_STAGES } from "../../src/service/shutdown.js";

describe("Shutdown", () => {
  it("runs steps in the DESIGN order whatever order they were registered in", async () => {
    const shutdown = new Shutdown(createLogger("test", "silent"));
    const ran: string[] = [];
    for (const stage of [...SHUTDOWN_STAGES].reverse()) shutdown.on(stage, stage, () => void ran.push(stage));
    await shutdown.run();
    expect(ran).to.deep.equal([...SHUTDOWN_STAGES]);
  });

  it("keeps going when a step fails, and runs only once", async () => {
    const shutdown = new Shutdown(createLogger("test", "silent"));
    let closed = 0;
    shutdown.on("stop-consuming", "broken", () => {
      throw new Error("boom");
    });
    shutdown.on("close-store", "store", () => void closed++);
    await Promise.all([shutdown.run(), shutdown.run()]);
    expect(closed).to.equal(1);
  });
});
