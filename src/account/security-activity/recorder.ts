import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { Mailer, QueuedMail } from '../../mail/mailer.js';
import {
  renderSecurityAlert,
  type SecurityAlertKind,
  type SecurityAlertValues,
} from '../../mail/security-alerts.js';
import { describeDevice } from '../../modules/security-events/device.js';
import type { SecurityEventInsert } from '../../modules/security-events/repo.js';
import type { SecurityEventsService } from '../../modules/security-events/service.js';
import type { EventDetails, SecurityEventType } from '../../modules/security-events/types.js';
import type { ClientInfo } from '../client.js';

/** The account an event is about: its id, and where and to whom an alert goes (if its owner proved it). */
export interface ActivityUser {
  id: string;
  email: string;
  username: string;
  email_verified: boolean;
}

export interface ActivityEvent {
  user: ActivityUser;
  type: SecurityEventType;
  client: ClientInfo;
  details?: EventDetails;
}

export interface SignInEvent {
  user: ActivityUser;
  /** `email`, or the provider's name. */
  method: string;
  client: ClientInfo;
  /** The login presented a token of this account: a device it signed in on before, whatever its user agent. */
  knownDevice: boolean;
  /** The second factor the sign-in was completed with (`totp` or `recovery_code`), if it needed one. */
  secondFactor?: string;
}

/** An alert written in the caller's transaction: hand it to `send` once that committed. */
export type PendingAlert = QueuedMail | undefined;

export interface SecurityActivitySettings {
  /** SECURITY_ALERTS. */
  alerts: boolean;
  /** The password-reset page, where an alert sends a user who did not do what it reports. */
  resetPageUrl: string;
}

/** What the log cannot record on a path that must not fail for it (a failed sign-in's 401). */
export type ActivityFailureReporter = (error: unknown, what: string) => void;

/** The events whose alert is mailed every time (the new-device alert is the sign-in's own). */
const ALERT_OF: Partial<Record<SecurityEventType, SecurityAlertKind>> = {
  password_changed: 'alert_password_changed',
  password_reset: 'alert_password_reset',
  email_changed: 'alert_email_changed',
  provider_linked: 'alert_provider_linked',
  provider_unlinked: 'alert_provider_unlinked',
  deletion_requested: 'alert_deletion_requested',
  passkey_added: 'alert_passkey_added',
  passkey_removed: 'alert_passkey_removed',
  second_factor_enabled: 'alert_second_factor_enabled',
  second_factor_disabled: 'alert_second_factor_disabled',
  recovery_codes_regenerated: 'alert_recovery_codes_regenerated',
  // A verified number signs in by a texted code: a new way in, told as a passkey's is.
  phone_verified: 'alert_phone_verified',
  phone_removed: 'alert_phone_removed',
};

/** What an alert names of its event's details: the provider, the passkey, whether an operator did it. */
type AlertFacts = Pick<SecurityAlertValues, 'provider' | 'passkey' | 'byOperator'>;

function alertFacts(details: EventDetails | undefined): AlertFacts {
  const facts: AlertFacts = {};
  if (typeof details?.provider === 'string') facts.provider = details.provider;
  if (typeof details?.passkey_name === 'string') facts.passkey = details.passkey_name;
  if (details?.by === 'operator') facts.byOperator = true;
  return facts;
}

/** At most one new-device mail per account per this many minutes, however many sign-ins a burst makes. */
export const NEW_DEVICE_ALERT_MINUTES = 10;

/** What SecurityActivity is built from. */
export interface SecurityActivityDeps {
  db: Executor;
  events: SecurityEventsService;
  mailer: Mailer;
  settings: SecurityActivitySettings;
  /** Where an event that could not be written is told (nowhere unless given). */
  reportFailure?: ActivityFailureReporter;
}

/**
 * The account layer's one call for the security log: every use case records what it did here, inside its
 * transaction when it has one (the event, and its alert mail, exist exactly when the action committed), after
 * it otherwise. The alert mails (SECURITY_ALERTS) go through the outbox like every other mail.
 */
export class SecurityActivity {
  private readonly reportFailure: ActivityFailureReporter;

  constructor(private readonly deps: SecurityActivityDeps) {
    this.reportFailure = deps.reportFailure ?? (() => {});
  }

  /**
   * Records `event` with `trx` and writes its alert there too, if it has one: the caller hands the result
   * to `send` after commit. Without `trx` the event is written on its own (with its alert, in a transaction
   * of its own) and the alert sent: nothing for the caller to do.
   */
  async record(event: ActivityEvent, trx?: Executor): Promise<PendingAlert> {
    if (trx) return this.recordWithin(trx, event);
    if (!this.alertOf(event.type)) {
      await this.deps.events.append(this.eventOf(event));
      return undefined;
    }
    this.send(await writeTransaction(this.deps.db, (own) => this.recordWithin(own, event)));
    return undefined;
  }

  /**
   * A successful sign-in: one INSERT that also decides whether the device is new (repo.insertSignIn). Only
   * then, and at most once per account per NEW_DEVICE_ALERT_MINUTES, an alert. With `trx`, as `record`.
   */
  async recordSignIn(signIn: SignInEvent, trx?: Executor): Promise<PendingAlert> {
    const details = {
      method: signIn.method,
      ...(signIn.secondFactor ? { second_factor: signIn.secondFactor } : {}),
    };
    const event = { userId: signIn.user.id, client: signIn.client, details };
    const { newDevice } = await this.deps.events.appendSignIn(event, signIn.knownDevice, trx);
    if (!newDevice || !this.deps.settings.alerts) return undefined;
    if (trx) return this.newDeviceAlert(trx, signIn);
    this.send(await writeTransaction(this.deps.db, (own) => this.newDeviceAlert(own, signIn)));
    return undefined;
  }

  /**
   * A wrong password, provider token, second-factor code or passkey assertion for an existing account:
   * counted, one row per account per window.
   * Never fails the caller's 401: a failure to record is reported and the refusal stands.
   */
  async recordFailedSignIn(userId: string, method: string, client: ClientInfo): Promise<void> {
    try {
      await this.deps.events.append({ userId, type: 'sign_in_failed', client, details: { method } });
    } catch (error) {
      this.reportFailure(error, 'sign_in_failed');
    }
  }

  /**
   * An event no request made (a command or the server's own schedule, e.g. a consent withdrawn by expiry):
   * no address or user agent, and no alert. Written with `trx`, so it exists exactly when the change does.
   */
  async recordUnattended(trx: Executor, userId: string, type: SecurityEventType, details: EventDetails) {
    await this.deps.events.append({ userId, type, client: { ip: '', userAgent: undefined }, details }, trx);
  }

  /** The `account_created` event's row, for an email sign-up's one statement (it has no alert). */
  prepareRegistration(userId: string, client: ClientInfo): SecurityEventInsert {
    return this.deps.events.prepare({
      userId,
      type: 'account_created',
      client,
      details: { method: 'email' },
    });
  }

  /** Starts sending an alert its caller's transaction wrote; call only after it committed. */
  send(alert: PendingAlert): void {
    this.deps.mailer.sendSoon(alert);
  }

  private async recordWithin(trx: Executor, event: ActivityEvent): Promise<PendingAlert> {
    await this.deps.events.append(this.eventOf(event), trx);
    const kind = this.alertOf(event.type);
    if (!kind) return undefined;
    return this.queueAlert(trx, kind, event.user, event.client, alertFacts(event.details));
  }

  private async newDeviceAlert(trx: Executor, signIn: SignInEvent): Promise<PendingAlert> {
    const { user, client } = signIn;
    if (!(await this.deps.events.claimAlertSlot(trx, user.id, 'new_device', NEW_DEVICE_ALERT_MINUTES))) {
      return undefined;
    }
    return this.queueAlert(trx, 'alert_new_device', user, client);
  }

  /**
   * An alert to the account's address, only if its owner proved they read it (a verification link, a reset
   * link, a provider's word): otherwise anyone could register with someone else's address and mail them
   * with every action. The user is the account as it was before the change: an email change's alert goes
   * to the address it had, when that one was verified, which a thief who changed it does not read.
   */
  private async queueAlert(
    trx: Executor,
    kind: SecurityAlertKind,
    user: ActivityUser,
    client: ClientInfo,
    facts: AlertFacts = {},
  ): Promise<PendingAlert> {
    if (!user.email_verified) return undefined;
    const locale = client.locale ?? 'en';
    const content = renderSecurityAlert(kind, locale, {
      username: user.username,
      at: new Date(),
      device: describeDevice(client.userAgent).name,
      ip: client.ip,
      resetLink: this.deps.settings.resetPageUrl,
      ...facts,
    });
    // The account's own proven address: capped per account, never on the address that strangers can mail.
    return this.deps.mailer.queueRenderedWithin(trx, user.email, kind, locale, content, user.id);
  }

  private alertOf(type: SecurityEventType): SecurityAlertKind | undefined {
    return this.deps.settings.alerts ? ALERT_OF[type] : undefined;
  }

  private eventOf(event: ActivityEvent) {
    const { user, type, client, details } = event;
    return { userId: user.id, type, client, ...(details ? { details } : {}) };
  }
}

/** The password-reset page of PASSWORD_RESET_URL: the link's template without its token. */
export function resetPageUrl(template: string): string {
  try {
    const url = new URL(template.replaceAll('{token}', ''));
    for (const [name, value] of [...url.searchParams]) if (value === '') url.searchParams.delete(name);
    return url.toString();
  } catch {
    return template.replaceAll('{token}', '');
  }
}
