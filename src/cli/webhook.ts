import type { Command } from 'commander';
import type { WebhookDisabledReason } from '../db/schema-events.js';
import { NotFoundError } from '../errors.js';
import { DISABLE_AFTER_DAYS } from '../modules/webhooks/delivery.js';
import type { EndpointView } from '../modules/webhooks/endpoints-service.js';
import { WebhookRequestError } from '../modules/webhooks/errors.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, operatorMessage, printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

interface AddOptions {
  events?: string;
  description?: string;
  json?: boolean;
}

/** The service's refusals of a request as the operator's one line. */
async function operatorLine<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof WebhookRequestError) throw new OperatorError(error.message);
    throw error;
  }
}

/** `2026-11-27T10:00:00Z` or `2026-11-27`: a time --since accepts. */
function parseSince(value: string): Date {
  const time = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
    ? Date.parse(value)
    : Number.NaN;
  if (Number.isNaN(time))
    throw new OperatorError(`--since: an ISO 8601 time such as 2026-11-27T10:00:00Z (got "${value}")`);
  return new Date(time);
}

const events = (list: string[] | null) => (list === null ? 'all' : list.join(','));

/** Why an endpoint is disabled, as `webhook list` says it. */
const DISABLED_BECAUSE: Record<WebhookDisabledReason, string> = {
  operator: 'by an operator',
  failing: `failing for ${DISABLE_AFTER_DAYS} days`,
  gone: 'receiver answered 410',
};

/** An endpoint's STATE column. */
function state(endpoint: EndpointView): string {
  if (endpoint.disabled_at !== null) {
    const reason = endpoint.disabled_reason === null ? '' : `: ${DISABLED_BECAUSE[endpoint.disabled_reason]}`;
    return `disabled ${endpoint.disabled_at}${reason}`;
  }
  return endpoint.failing_since !== null ? `failing since ${endpoint.failing_since}` : 'enabled';
}

/** `accounts webhook add|list|remove|rotate-secret|disable|enable|deliveries|replay`. */
export function registerWebhookCommands(
  program: Command,
  { terminal, withServices }: CommandEnvironment,
): void {
  const webhook = program
    .command('webhook')
    .description('Manage the endpoints account events are delivered to, signed (docs/events.md)');

  webhook
    .command('add')
    .description('Add an endpoint; prints its id and its whsec_ secret, shown this once')
    .argument('<url>', 'where to POST the events: https (http only with WEBHOOK_ALLOW_PRIVATE=true)')
    .option('--events <types>', 'the event types it receives, comma-separated (default: every type)')
    .option('--description <text>', 'what the endpoint is, for the list')
    .option('--json', 'print {"id","url","events","secret"} as JSON')
    .action(async (url: string, options: AddOptions) => {
      const types = options.events?.split(',').map((type) => type.trim());
      const added = await withServices(({ webhooks }) =>
        operatorLine(
          webhooks.add({
            url,
            ...(types ? { events: types } : {}),
            ...(options.description !== undefined ? { description: options.description } : {}),
          }),
        ),
      );
      if (options.json) return printJson(terminal, added);
      printLine(
        terminal,
        `Added webhook endpoint ${added.id} for ${added.url} (events: ${events(added.events)}).`,
      );
      printLine(terminal, `Secret (shown once, keep it with the receiver): ${added.secret}`);
    });

  webhook
    .command('list')
    .description('List the endpoints (never their secrets)')
    .option('--json', 'print the endpoints as JSON')
    .action(async (options: { json?: boolean }) => {
      const endpoints = await withServices(({ webhooks }) => webhooks.list());
      if (options.json) return printJson(terminal, endpoints);
      if (endpoints.length === 0) return printLine(terminal, 'No webhook endpoints.');
      printColumns(terminal, [
        ['ID', 'URL', 'EVENTS', 'STATE', 'DESCRIPTION'],
        ...endpoints.map((endpoint) => [
          endpoint.id,
          endpoint.url,
          events(endpoint.events),
          state(endpoint),
          endpoint.description ?? '',
        ]),
      ]);
    });

  webhook
    .command('remove')
    .description('Remove an endpoint and its deliveries')
    .argument('<id>', 'the endpoint id')
    .action(async (id: string) => {
      await withServices(({ webhooks }) => webhooks.remove(id));
      printLine(terminal, `Removed webhook endpoint ${id}.`);
    });

  webhook
    .command('rotate-secret')
    .description('Give an endpoint a new secret (shown once); the old one keeps signing beside it for 24 h')
    .argument('<id>', 'the endpoint id')
    .option('--json', 'print {"id","secret","previous_until"} as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const rotated = await withServices(({ webhooks }) => operatorLine(webhooks.rotateSecret(id)));
      if (options.json) return printJson(terminal, rotated);
      printLine(terminal, `New secret of ${id} (shown once): ${rotated.secret}`);
      printLine(terminal, `The previous secret signs beside it until ${rotated.previous_until}.`);
    });

  for (const [name, disabled] of [
    ['disable', true],
    ['enable', false],
  ] as const) {
    webhook
      .command(name)
      .description(
        disabled
          ? 'Stop delivering to an endpoint (its deliveries wait; new events are not queued for it)'
          : 'Deliver to an endpoint again (what waited is sent)',
      )
      .argument('<id>', 'the endpoint id')
      .action(async (id: string) => {
        await withServices(({ webhooks }) => webhooks.setDisabled(id, disabled));
        printLine(terminal, `${disabled ? 'Disabled' : 'Enabled'} webhook endpoint ${id}.`);
      });
  }

  webhook
    .command('deliveries')
    .description('List the latest delivery attempts (100), newest first: of one endpoint, or of all')
    .argument('[id]', 'the endpoint id')
    .option('--failed', 'only attempts that got no 2xx')
    .option('--json', 'print the attempts as JSON')
    .action(async (id: string | undefined, options: { failed?: boolean; json?: boolean }) => {
      const attempts = await withServices(({ webhooks }) =>
        webhooks.attempts({
          ...(id !== undefined ? { endpointId: id } : {}),
          failed: options.failed === true,
        }),
      );
      if (options.json) return printJson(terminal, attempts);
      if (attempts.length === 0) return printLine(terminal, 'No delivery attempts.');
      printColumns(terminal, [
        ['EVENT', 'TYPE', 'ENDPOINT', 'AT', 'TRY', 'RESULT', 'OUTCOME', 'NEXT'],
        ...attempts.map((attempt) => [
          attempt.event_id,
          attempt.type,
          attempt.endpoint_id,
          attempt.attempted_at.toISOString(),
          String(attempt.attempt),
          attempt.status_code !== null ? String(attempt.status_code) : (attempt.error ?? ''),
          attempt.outcome,
          attempt.next_attempt_at?.toISOString() ?? '-',
        ]),
      ]);
    });

  webhook
    .command('replay')
    .description(
      'Send an event again to every endpoint subscribed to it, or with --since every event since then to one ' +
        'endpoint; the same webhook-id as before',
    )
    .argument('<id>', 'an event id; with --since, an endpoint id')
    .option('--since <time>', 'an ISO 8601 time: replay to endpoint ID every event since then')
    .action(async (id: string, options: { since?: string }) => {
      if (options.since !== undefined) {
        const since = parseSince(options.since);
        const count = await withServices(({ webhooks }) => webhooks.replaySince(id, since));
        printLine(terminal, `Queued ${count} event(s) since ${since.toISOString()} for ${id}.`);
        return;
      }
      const endpoints = await withServices(({ webhooks }) => webhooks.replayEvent(id)).catch(
        (error: unknown) => {
          // The other form takes an endpoint id: an operator who meant it learns how from this line.
          if (error instanceof NotFoundError) {
            throw new OperatorError(
              `${operatorMessage(error)}; to replay an endpoint's events, add --since TIME`,
            );
          }
          throw error;
        },
      );
      printLine(terminal, `Queued event ${id} for ${endpoints.length} endpoint(s).`);
    });
}
