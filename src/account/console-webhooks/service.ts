import { ForbiddenError, ServiceUnavailableError, ValidationError } from '../../errors.js';
import { roleCan } from '../../modules/staff/permissions.js';
import type { DeliveryRow } from '../../modules/webhooks/attempts-repo.js';
import type {
  AddedEndpoint,
  EndpointView,
  WebhookEndpoints,
} from '../../modules/webhooks/endpoints-service.js';
import { TargetRefusedError, WebhookRequestError } from '../../modules/webhooks/errors.js';
import type { Access, StaffActor, StaffGate } from '../console-users/staff-access.js';

/** What adding an endpoint takes from the console: the CLI's `webhook add` and a reason. */
export interface ConsoleEndpointInput {
  url: string;
  events?: string[] | undefined;
  description?: string | undefined;
  reason: string;
}

/** A delivery as the admin API answers it: its state, and its attempts newest first. */
export interface DeliveryView {
  event_id: string;
  type: string;
  occurred_at: string;
  /** `waiting` while the queue holds it (a retry, or a replay not yet sent), else its last attempt's outcome. */
  state: 'waiting' | 'delivered' | 'retry' | 'failed';
  next_attempt_at: string | null;
  attempts: {
    attempt: number;
    at: string;
    outcome: 'delivered' | 'retry' | 'failed';
    status_code: number | null;
    error: string | null;
  }[];
}

function deliveryView(row: DeliveryRow): DeliveryView {
  return {
    event_id: row.event_id,
    type: row.type,
    occurred_at: row.occurred_at.toISOString(),
    state: row.waiting ? 'waiting' : (row.attempts[0]?.outcome ?? 'waiting'),
    next_attempt_at: row.next_attempt_at?.toISOString() ?? null,
    attempts: row.attempts.map((attempt) => ({
      attempt: attempt.attempt,
      at: attempt.attempted_at.toISOString(),
      outcome: attempt.outcome,
      status_code: attempt.status_code,
      error: attempt.error,
    })),
  };
}

/**
 * The webhooks in the console (admin only: `webhooks.manage`), over the one WebhookEndpoints service that
 * `accounts webhook …` calls.
 *
 * What is recorded, and why: every change goes into the access records, with its reason. An endpoint is
 * where every user's account events (ids, email addresses, what they did) are sent, so adding, enabling,
 * disabling, re-keying or removing one changes who receives people's data; a reviewer must be able to ask
 * who did it, when and why, and the access records are the tamper-evident, long-kept place for that. They
 * name no subject (no one user's data is read). A replay sends one user's event again, so its record names
 * that user as the subject, as a disclosure of their data. Reading the lists is not recorded: they show
 * event ids, types, times and outcomes, never an event's data or whose it is.
 */
export class ConsoleWebhooks {
  constructor(
    private readonly webhooks: WebhookEndpoints,
    private readonly gate: StaffGate,
  ) {}

  async list(actor: StaffActor): Promise<{ endpoints: EndpointView[] }> {
    allowed(actor);
    return { endpoints: await this.webhooks.list() };
  }

  async deliveries(
    actor: StaffActor,
    endpointId: string,
    page: { before?: string | undefined; limit: number },
  ): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
    allowed(actor);
    const found = await this.webhooks.deliveries(endpointId, page);
    return { deliveries: found.deliveries.map(deliveryView), next_cursor: found.next_cursor };
  }

  /** Adds an endpoint, its target checked as the CLI's is; the secret is in the answer, this once. */
  add(actor: StaffActor, input: ConsoleEndpointInput): Promise<AddedEndpoint> {
    return this.gate.run(
      actor,
      change('webhook.add', input.reason),
      () =>
        this.webhooks
          .add({
            url: input.url,
            ...(input.events === undefined ? {} : { events: input.events }),
            ...(input.description === undefined ? {} : { description: input.description }),
          })
          .catch(asAnswer),
      (added) => ({ endpoint_id: added.id, target: origin(added.url) }),
    );
  }

  remove(actor: StaffActor, id: string, reason: string): Promise<{ removed: true }> {
    return this.gate.run(
      actor,
      change('webhook.remove', reason),
      async () => {
        await this.webhooks.remove(id);
        return { removed: true as const };
      },
      () => ({ endpoint_id: id }),
    );
  }

  setDisabled(
    actor: StaffActor,
    id: string,
    disabled: boolean,
    reason: string,
  ): Promise<{ id: string; disabled: boolean }> {
    return this.gate.run(
      actor,
      change(disabled ? 'webhook.disable' : 'webhook.enable', reason),
      async () => {
        await this.webhooks.setDisabled(id, disabled);
        return { id, disabled };
      },
      () => ({ endpoint_id: id }),
    );
  }

  /** A new secret, shown this once; the previous one signs beside it for 24 hours. */
  rotateSecret(
    actor: StaffActor,
    id: string,
    reason: string,
  ): Promise<{ id: string; secret: string; previous_until: string }> {
    return this.gate.run(
      actor,
      change('webhook.rotate_secret', reason),
      () => this.webhooks.rotateSecret(id).catch(asAnswer),
      () => ({ endpoint_id: id }),
    );
  }

  /** Sends one delivered event to its endpoint again; the record names the user the event is of. */
  async replay(
    actor: StaffActor,
    endpointId: string,
    eventId: string,
    reason: string,
  ): Promise<{ event_id: string; endpoint_id: string; queued: true }> {
    // Whose event it is is known once the replay found it: the gate reads the subject when it writes the
    // record, after the work (a refusal or a missing event names no one).
    let subjectId: string | null = null;
    return this.gate.run(
      actor,
      {
        ...change('webhook.replay', reason),
        get subjectId() {
          return subjectId;
        },
      },
      async () => {
        subjectId = (await this.webhooks.replayDelivery(endpointId, eventId)).user_id;
        return { event_id: eventId, endpoint_id: endpointId, queued: true as const };
      },
      () => ({ endpoint_id: endpointId, event_id: eventId }),
    );
  }
}

const PERMISSION = 'webhooks.manage';

function allowed(actor: StaffActor): void {
  if (!roleCan(actor.role, PERMISSION)) throw new ForbiddenError();
}

const change = (action: string, reason: string): Access => ({
  permission: PERMISSION,
  action,
  subjectId: null,
  reason,
  reasonRequired: true,
});

/**
 * Only the target's origin goes into the record: a receiver's URL may carry a token in its path or query,
 * and the records are kept for years and read by every admin.
 */
function origin(url: string): string {
  return new URL(url).origin;
}

/**
 * The CLI's one-line refusals as the admin API's answers: a target the address guard refuses is a 422 on
 * `url` (the guard's line as its detail); no SECRETS_KEY to seal secrets with is the deployment's fault.
 */
function asAnswer(error: unknown): never {
  if (error instanceof TargetRefusedError) {
    throw new ValidationError({ url: [{ rule: 'webhook_target', params: { detail: error.message } }] });
  }
  if (error instanceof WebhookRequestError) throw new ServiceUnavailableError(error);
  throw error;
}
