import type { Command } from "commander";
import type { CreatedWebhookSubscription, WebhookDelivery, WebhookSubscription } from "../api/api-types.js";
import type { CliContext } from "../cli-context.js";
import { collect, wholeNumber } from "../command-options.js";
import { formatTable } from "../output/table.js";

/** `mainline webhooks ...`: the organisation's webhook subscriptions and their deliveries. */
export function registerWebhookCommands(program: Command, cli: CliContext): void {
  const webhooks = program
    .command("webhooks")
    .description("webhook subscriptions (Standard Webhooks signatures)");

  webhooks
    .command("create")
    .description(
      "subscribe a URL to events; the signing secret is shown only in the answer (again to a retry of the same create)",
    )
    .argument("<url>", "http(s) URL that receives the events")
    .option("--event <type>", "an event type to send (repeat; default: every type)", collect)
    .option("--description <text>", "what the subscription is for")
    .option("--secret <whsec_...>", "your own signing secret (default: a new one)")
    .action(
      async (
        url: string,
        opts: { event?: string[]; description?: string; secret?: string },
        command: Command,
      ) => {
        const { subscription } = await cli.api().post<CreatedWebhookSubscription>("/webhooks/subscriptions", {
          url,
          ...(opts.event ? { eventTypes: opts.event } : {}),
          ...(opts.description !== undefined ? { description: opts.description } : {}),
          ...(opts.secret !== undefined ? { secret: opts.secret } : {}),
        });
        cli
          .output(command)
          .result({ subscription }, () => [
            `Created subscription ${subscription.id} → ${subscription.url} (${describeEvents(subscription)})`,
            `Signing secret (shown once): ${subscription.secret}`,
          ]);
      },
    );

  webhooks
    .command("list")
    .description("list subscriptions")
    .action(async (_opts: unknown, command: Command) => {
      const { subscriptions } = await cli
        .api()
        .get<{ subscriptions: WebhookSubscription[] }>("/webhooks/subscriptions");
      cli.output(command).result({ subscriptions }, () =>
        subscriptions.length === 0
          ? "No webhook subscriptions."
          : formatTable(
              ["ID", "URL", "EVENTS", "STATE"],
              subscriptions.map((s) => [
                s.id,
                s.url,
                describeEvents(s),
                s.disabled ? `disabled: ${s.disabledReason}` : "enabled",
              ]),
            ),
      );
    });

  webhooks
    .command("delete")
    .description("delete a subscription and drop its undelivered events")
    .argument("<id>", "the subscription id (whs_...)")
    .action(async (id: string, _opts: unknown, command: Command) => {
      await cli.api().delete("/webhooks/subscriptions", { id });
      cli.output(command).result({ deleted: id }, () => `Deleted subscription ${id}`);
    });

  webhooks
    .command("test")
    .description('send a "webhook.test" event to a subscription')
    .argument("<id>", "the subscription id")
    .action(async (id: string, _opts: unknown, command: Command) => {
      const sent = await cli.api().post<{ eventId: string }>("/webhooks/subscriptions/test", { id });
      cli.output(command).result(sent, () => `Queued test event ${sent.eventId} for ${id}`);
    });

  webhooks
    .command("enable")
    .description("re-enable a disabled subscription")
    .argument("<id>", "the subscription id")
    .action(async (id: string, _opts: unknown, command: Command) => {
      const { subscription } = await cli
        .api()
        .post<{ subscription: WebhookSubscription }>("/webhooks/subscriptions/enable", { id });
      cli.output(command).result({ subscription }, () => `Enabled subscription ${subscription.id}`);
    });

  webhooks
    .command("deliveries")
    .description("delivery attempts of a subscription, most recent first")
    .argument("<id>", "the subscription id")
    .option("--limit <n>", "at most this many", wholeNumber(1))
    .action(async (id: string, opts: { limit?: number }, command: Command) => {
      const { deliveries } = await cli.api().get<{ deliveries: WebhookDelivery[] }>("/webhooks/deliveries", {
        subscriptionId: id,
        limit: opts.limit,
      });
      cli.output(command).result({ deliveries }, () =>
        deliveries.length === 0
          ? "No deliveries yet."
          : formatTable(
              ["TIME", "EVENT", "ATTEMPT", "RESULT"],
              deliveries.map((d) => [
                d.time,
                d.eventType,
                String(d.attempt),
                d.succeeded ? `ok ${d.statusCode ?? ""}`.trim() : `failed: ${d.error ?? d.statusCode ?? ""}`,
              ]),
            ),
      );
    });
}

function describeEvents(s: WebhookSubscription): string {
  return s.eventTypes.length === 0 ? "every event" : s.eventTypes.join(", ");
}
