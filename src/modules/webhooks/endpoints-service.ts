import { MAKE_SECRETS_KEY } from '../../config/second-factor.js';
import type { WebhookDisabledReason } from '../../db/schema-events.js';
import { NotFoundError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { ACCOUNT_EVENT_TYPES, isAccountEventType } from '../account-events/types.js';
import { checkTargetUrl, type HostLookup, resolveTarget } from './address-guard.js';
import type { AttemptRow, DeliveryRow, WebhookAttemptsRepo, WebhookDeliveryPages } from './attempts-repo.js';
import type { WebhookDeliveriesRepo } from './deliveries-repo.js';
import type { EndpointRow, WebhookEndpointsRepo } from './endpoints-repo.js';
import { WebhookRequestError } from './errors.js';
import { newWebhookSecret, ROTATION_OVERLAP_MS, type WebhookSecrets } from './secrets.js';

/** An endpoint as the operator sees it: never its secret. */
export interface EndpointView {
  id: string;
  url: string;
  description: string | null;
  /** null = every type. */
  events: string[] | null;
  created_at: string;
  disabled_at: string | null;
  /** Why it is disabled: `operator`, `failing` (for DISABLE_AFTER_DAYS), `gone` (its receiver answered 410). */
  disabled_reason: WebhookDisabledReason | null;
  failing_since: string | null;
}

/** A new endpoint, with its secret: shown this once. */
export interface AddedEndpoint {
  id: string;
  url: string;
  events: string[] | null;
  secret: string;
}

export interface AddEndpoint {
  url: string;
  events?: string[];
  description?: string;
}

/** At most this many attempts are listed. */
export const ATTEMPTS_LISTED = 100;

/** Only on PostgreSQL: on the embedded database an unset SECRETS_KEY is kept in DATA_DIR. */
const NO_SECRETS_KEY = `SECRETS_KEY is not set: webhook secrets are sealed with it (${MAKE_SECRETS_KEY})`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function view(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: row.event_types,
    created_at: row.created_at.toISOString(),
    disabled_at: row.disabled_at?.toISOString() ?? null,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
  };
}

export interface WebhookEndpointsDeps {
  endpoints: WebhookEndpointsRepo;
  deliveries: WebhookDeliveriesRepo;
  attempts: WebhookAttemptsRepo;
  deliveryPages: WebhookDeliveryPages;
  /** undefined = SECRETS_KEY is not set: no endpoint can be added (its secret could not be kept). */
  secrets: WebhookSecrets | undefined;
  allowPrivate: boolean;
  lookup?: HostLookup;
}

/** The operator's handle on webhooks: endpoints, their secrets, the attempts, replays. */
export class WebhookEndpoints {
  constructor(private readonly deps: WebhookEndpointsDeps) {}

  /**
   * Adds an endpoint after checking its target as a delivery would (https, and a public address once
   * resolved, unless WEBHOOK_ALLOW_PRIVATE), so a mistake shows now, not at the first event.
   */
  async add(request: AddEndpoint): Promise<AddedEndpoint> {
    const secrets = this.deps.secrets;
    if (secrets === undefined) {
      throw new WebhookRequestError(NO_SECRETS_KEY);
    }
    if (request.url.length > 2048) throw new WebhookRequestError('URL: at most 2048 characters');
    const url = checkTargetUrl(request.url, this.deps.allowPrivate);
    await resolveTarget(url, this.deps.allowPrivate, this.deps.lookup);
    const events = request.events === undefined ? null : [...new Set(request.events)];
    const unknown = events?.find((type) => !isAccountEventType(type));
    if (unknown !== undefined || events?.length === 0) {
      throw new WebhookRequestError(
        `--events: ${unknown ?? '(none)'} is not an event type; the types are ${ACCOUNT_EVENT_TYPES.join(', ')}`,
      );
    }
    const description = request.description?.trim() || null;
    if (description !== null && description.length > 500) {
      throw new WebhookRequestError('--description: at most 500 characters');
    }
    const id = newId();
    const secret = newWebhookSecret();
    await this.deps.endpoints.insert({
      id,
      url: url.toString(),
      description,
      eventTypes: events,
      sealedSecret: secrets.seal(secret, id),
    });
    return { id, url: url.toString(), events, secret };
  }

  async list(): Promise<EndpointView[]> {
    return (await this.deps.endpoints.list()).map(view);
  }

  async remove(id: string): Promise<void> {
    if (!UUID.test(id) || !(await this.deps.endpoints.remove(id))) throw notFound(id);
  }

  /** A new secret, shown once; the current one signs beside it for 24 hours. */
  async rotateSecret(
    id: string,
    now = new Date(),
  ): Promise<{ id: string; secret: string; previous_until: string }> {
    const secrets = this.deps.secrets;
    const row = UUID.test(id) ? await this.deps.endpoints.find(id) : undefined;
    if (row === undefined) throw notFound(id);
    if (secrets === undefined) {
      throw new WebhookRequestError(NO_SECRETS_KEY);
    }
    const secret = newWebhookSecret();
    const until = new Date(now.getTime() + ROTATION_OVERLAP_MS);
    if (!(await this.deps.endpoints.rotate(id, secrets.seal(secret, id), row.secret, until)))
      throw notFound(id);
    return { id, secret, previous_until: until.toISOString() };
  }

  async setDisabled(id: string, disabled: boolean): Promise<void> {
    if (!UUID.test(id) || !(await this.deps.endpoints.setDisabled(id, disabled))) throw notFound(id);
  }

  async attempts(options: { endpointId?: string; failed: boolean }): Promise<AttemptRow[]> {
    if (options.endpointId !== undefined && (await this.find(options.endpointId)) === undefined) {
      throw notFound(options.endpointId);
    }
    return this.deps.attempts.list({ ...options, limit: ATTEMPTS_LISTED });
  }

  /** Sends one event again, with its own webhook-id, to every endpoint enabled and subscribed now. */
  async replayEvent(eventId: string): Promise<string[]> {
    if (!UUID.test(eventId) || !(await this.deps.deliveries.eventExists(eventId))) {
      throw new NotFoundError(`event ${eventId} (purged, or never written)`);
    }
    return this.deps.deliveries.replayEvent(eventId);
  }

  /** Sends one endpoint again every event of its types since `since`; how many. */
  async replaySince(endpointId: string, since: Date): Promise<number> {
    if ((await this.find(endpointId)) === undefined) throw notFound(endpointId);
    return this.deps.deliveries.replayTo(endpointId, { since });
  }

  /**
   * An endpoint's deliveries with their attempts, the one attempted last first, `limit` a page; `before`:
   * the previous page's `next_cursor`.
   */
  async deliveries(
    endpointId: string,
    page: { before?: string | undefined; limit: number },
  ): Promise<{ deliveries: DeliveryRow[]; next_cursor: string | null }> {
    if ((await this.find(endpointId)) === undefined) throw notFound(endpointId);
    const rows = await this.deps.deliveryPages.page(endpointId, page.before, page.limit + 1);
    const deliveries = rows.slice(0, page.limit);
    const last = deliveries.at(-1);
    return { deliveries, next_cursor: rows.length > page.limit && last ? last.key : null };
  }

  /**
   * Sends one event again to one endpoint, with its own webhook-id: due now, or when the endpoint is enabled.
   * Returns whose account the event is of (null: of no one user), which a record of the replay names.
   */
  async replayDelivery(endpointId: string, eventId: string): Promise<{ user_id: string | null }> {
    if ((await this.find(endpointId)) === undefined) throw notFound(endpointId);
    const owner = UUID.test(eventId) ? await this.deps.deliveryPages.eventOwner(eventId) : undefined;
    if (owner === undefined) throw new NotFoundError(`event ${eventId} (purged, or never written)`);
    if ((await this.deps.deliveries.replayTo(endpointId, { eventId })) === 0) {
      throw new NotFoundError(`event ${eventId} for webhook endpoint ${endpointId} (not subscribed)`);
    }
    return owner;
  }

  private find(id: string): Promise<EndpointRow | undefined> {
    return UUID.test(id) ? this.deps.endpoints.find(id) : Promise.resolve(undefined);
  }
}

const notFound = (id: string) => new NotFoundError(`webhook endpoint ${id}`);
