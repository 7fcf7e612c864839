import { timingSafeEqual } from 'node:crypto';
import type { AgreedDocument, GuardianConsentMethod } from '../../db/schema-guardian.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import { anniversaryStart, GUARDIAN_CONSENT_AGE, isAdult } from '../../lib/age.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { Mailer } from '../../mail/mailer.js';
import { accountEvent, insertAccountEventQuery } from '../../modules/account-events/repo.js';
import type { GuardianChild, GuardianRepo, LiveGuardianLink } from '../../modules/guardian/repo.js';
import { linkWithToken } from '../../modules/lifecycle/links.js';
import type { Locale } from '../../validation/messages.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import type { GuardianIdentityCheck, StartedVerification, VerifiedPerson } from './identity.js';
import type { GuardianSettings } from './requests.js';

/** A document the child agreed to, as the guardian's page shows it. */
export interface AgreedDocumentView {
  key: string;
  version: number;
  title: string;
  url: string;
}

/** What the guardian's page shows for a link. */
export interface GuardianLinkView {
  /** `consent`: the guardian is asked; `withdraw`: the guardian consented and may take it back. */
  purpose: 'consent' | 'withdraw';
  child: { username: string };
  documents: AgreedDocumentView[];
  /** How the guardian is confirmed: the mailed link alone, or also a carrier identity verification. */
  method: GuardianConsentMethod;
  expires_at: string;
}

/** What a guardian's answer did. */
export interface GuardianAnswer {
  guardian_consent: 'granted' | 'refused';
}

/** The documents and versions the child agreed to (the consents module answers). */
export type ChildAgreements = (userId: string, locale: Locale) => Promise<AgreedDocumentView[]>;

/** Erases a child's account and everything of it, unless `stillDue` says otherwise under the row's lock. */
export interface ChildEraser {
  erase(
    user: { id: string; username: string },
    stillDue: (row: { guardian_consent: string | null }) => boolean,
  ): Promise<{ id: string } | undefined>;
}

/** The account's deletion with its grace period (ScheduledDeletions), or none when DELETION_GRACE_DAYS=0. */
export interface DeletionScheduler {
  readonly enabled: boolean;
  schedule(user: { id: string }, locale: Locale, client?: ClientInfo): Promise<Date | undefined>;
}

/** What GuardianConsents is built from. */
export interface GuardianConsentsDeps {
  db: Executor;
  repo: GuardianRepo;
  mailer: Mailer;
  activity: SecurityActivity;
  settings: GuardianSettings;
  identity: GuardianIdentityCheck;
  agreements: ChildAgreements;
  eraser: ChildEraser;
  deletions: DeletionScheduler;
  /** The child's own log goes with the child: a refusal's erasure is told here (the id only). */
  log: { info(details: object, message: string): void };
}

/** A used, replaced, expired or unknown link, or one of another purpose: one answer. */
const invalidToken = () => ValidationError.notFound('token');
const DAY_MS = 86_400_000;

/**
 * The guardian's side (PIPA art. 22-2): the page shows what the child agreed to; the guardian consents or
 * refuses. Where identity verification is configured the guardian must also prove, through it, to be an
 * adult (the record keeps the keyed hash of their CI); otherwise the mailed link alone is the method, the
 * weaker one the enforcement decree (art. 17-2) also allows. A refusal erases the child's account at once
 * (its guardian addresses with it); a consent lifts the child's restrictions and mails the guardian a link
 * to withdraw, which schedules the account's deletion.
 */
export class GuardianConsents {
  constructor(private readonly deps: GuardianConsentsDeps) {}

  async show(token: string, locale: Locale): Promise<GuardianLinkView> {
    const link = await this.liveLink(token);
    // A withdrawal confirms the guardian as the consent did; a consent, as this deployment does.
    const consent =
      link.purpose === 'withdraw' ? await this.deps.repo.consentInForce(link.child.id) : undefined;
    const configured = this.deps.identity.configured ? 'identity_verification' : 'mailed_link';
    return {
      purpose: link.purpose,
      child: { username: link.child.username },
      documents: await this.deps.agreements(link.child.id, locale),
      method: consent?.method ?? configured,
      expires_at: link.expiresAt.toISOString(),
    };
  }

  /** A verification bound to this link (a consent's or a withdrawal's), for PortOne's SDK (503 unconfigured). */
  async startVerification(token: string): Promise<StartedVerification> {
    const link = await this.liveLink(token);
    return this.deps.identity.start(link.id);
  }

  async answer(
    token: string,
    agree: boolean,
    identityVerificationId: string | undefined,
    client: ClientInfo,
  ): Promise<GuardianAnswer> {
    const link = await this.liveLink(token, 'consent');
    // The verification is asked before any transaction opens: it waits on PortOne.
    const person = await this.verifiedGuardian(link, identityVerificationId);
    const documents = (await this.deps.agreements(link.child.id, client.locale ?? 'en')).map(
      ({ key, version }): AgreedDocument => ({ key, version }),
    );
    const method: GuardianConsentMethod = person ? 'identity_verification' : 'mailed_link';
    const withdrawToken = newApiToken();
    const mail = await writeTransaction(this.deps.db, async (trx) => {
      const { child, locked } = await this.useLink(trx, link, token);
      const repo = this.deps.repo.with(trx);
      await repo.insertConsent({
        id: newId(),
        userId: child.id,
        method,
        guardianCiHash: person?.ciHash ?? null,
        agreed: agree,
        documents,
      });
      const event = agree ? 'guardian_consented' : 'guardian_refused';
      await this.deps.activity.record({ user: child, type: event, client, details: { method } }, trx);
      await insertAccountEventQuery(
        trx,
        accountEvent('guardian.consented', child.id, {
          user_id: child.id,
          agreed: agree,
          method,
          withdrawn: false,
        }),
      ).execute();
      if (!agree) return undefined;
      if (!(await repo.moveState(child.id, 'pending', 'granted'))) throw invalidToken();
      return this.queueWithdrawLink(trx, child, locked, withdrawToken, client.locale ?? 'en');
    });
    if (!agree) {
      // Everything of the child goes, the guardian's address with it; should this fail, the deadline's
      // sweep erases the account (it is still pending).
      const erased = await this.deps.eraser.erase(link.child, (row) => row.guardian_consent === 'pending');
      if (erased) this.deps.log.info({ user: erased.id }, 'guardian refused: account erased');
      return { guardian_consent: 'refused' };
    }
    this.deps.mailer.sendSoon(mail);
    return { guardian_consent: 'granted' };
  }

  /**
   * The guardian takes the consent back: the child is restricted again and the account's deletion scheduled.
   * Only the guardian who consented may: a consent given with a verified identity is withdrawn only with a
   * verification (bound to this link) of the same person, so the mailed link alone — forwarded, or read in a
   * shared mailbox — schedules nothing. A consent given by the mailed link is withdrawn by it, as it was given.
   */
  async withdraw(
    token: string,
    identityVerificationId: string | undefined,
    client: ClientInfo,
  ): Promise<{ deletion_due_at: string | null }> {
    const link = await this.liveLink(token, 'withdraw');
    const consent = await this.deps.repo.consentInForce(link.child.id);
    if (!consent) throw invalidToken();
    // Asked before any transaction opens: it waits on PortOne.
    await this.sameGuardian(link, consent.guardianCiHash, identityVerificationId);
    const method = consent.method;
    await writeTransaction(this.deps.db, async (trx) => {
      const { child } = await this.useLink(trx, link, token);
      const repo = this.deps.repo.with(trx);
      if (!(await repo.moveState(child.id, 'granted', 'pending'))) throw invalidToken();
      await repo.markWithdrawn(child.id);
      await this.deps.activity.record(
        { user: child, type: 'guardian_withdrawn', client, details: { method } },
        trx,
      );
      const data = { user_id: child.id, agreed: false, method, withdrawn: true };
      await insertAccountEventQuery(trx, accountEvent('guardian.consented', child.id, data)).execute();
    });
    const locale = client.locale ?? 'en';
    if (!this.deps.deletions.enabled) {
      await this.deps.eraser.erase(link.child, (row) => row.guardian_consent === 'pending');
      return { deletion_due_at: null };
    }
    const dueAt = await this.deps.deletions.schedule(link.child, locale, client);
    return { deletion_due_at: dueAt ? dueAt.toISOString() : null };
  }

  private async liveLink(token: string, purpose?: LiveGuardianLink['purpose']): Promise<LiveGuardianLink> {
    const link = await this.deps.repo.liveLink(hashApiToken(token));
    if (!link || (purpose && link.purpose !== purpose)) throw invalidToken();
    return link;
  }

  /** The guardian's verified identity when the deployment verifies guardians; an adult, or a 422. */
  private async verifiedGuardian(
    link: LiveGuardianLink,
    identityVerificationId: string | undefined,
  ): Promise<VerifiedPerson | undefined> {
    if (!this.deps.identity.configured) return undefined;
    if (identityVerificationId === undefined) {
      throw new ValidationError({ identity_verification_id: [{ rule: 'required' }] });
    }
    const person = await this.deps.identity.verifyAdult(identityVerificationId, link.id);
    if (!isAdult(person.birthDate, new Date())) {
      throw new ValidationError({ identity_verification_id: [{ rule: 'identity_not_adult' }] });
    }
    return person;
  }

  /** For a consent given with a verified identity (its CI hash): a verification of that same person, or a 422. */
  private async sameGuardian(
    link: LiveGuardianLink,
    ciHash: Buffer | null,
    verificationId: string | undefined,
  ) {
    if (ciHash === null) return;
    if (verificationId === undefined) {
      throw new ValidationError({ identity_verification_id: [{ rule: 'required' }] });
    }
    const person = await this.deps.identity.verifyAdult(verificationId, link.id);
    if (person.ciHash.length !== ciHash.length || !timingSafeEqual(person.ciHash, ciHash)) {
      throw new ValidationError({ identity_verification_id: [{ rule: 'identity_not_guardian' }] });
    }
  }

  /**
   * In `trx`: the child's row locked first (the eraser's order), then the link, used up; a link used,
   * replaced or expired meanwhile, or a child no longer waiting, is the invalid token.
   */
  private async useLink(
    trx: Executor,
    link: LiveGuardianLink,
    token: string,
  ): Promise<{ child: GuardianChild; locked: LiveGuardianLink }> {
    const repo = this.deps.repo.with(trx);
    const child = await repo.lockChild(link.child.id);
    const locked = await repo.liveLink(hashApiToken(token), true);
    if (!child || !locked || locked.id !== link.id || !(await repo.useLink(locked.id))) throw invalidToken();
    return { child, locked };
  }

  /**
   * The link that withdraws the consent, mailed to the guardian who gave it; valid until the child turns 14
   * (then the child's own consent is enough), at least a day. The other addresses the child named are
   * forgotten: only the consenting guardian's is kept, on this link.
   */
  private async queueWithdrawLink(
    trx: Executor,
    child: GuardianChild,
    link: LiveGuardianLink,
    token: string,
    locale: Locale,
  ) {
    const now = Date.now();
    const fourteen = child.birth_date
      ? anniversaryStart(child.birth_date, GUARDIAN_CONSENT_AGE).getTime()
      : 0;
    const expiresAt = new Date(Math.max(fourteen, now + DAY_MS));
    const id = newId();
    const repo = this.deps.repo.with(trx);
    const guardianEmail = link.guardianEmail;
    await repo.insertLink({
      id,
      userId: child.id,
      purpose: 'withdraw',
      guardianEmail,
      tokenHash: hashApiToken(token),
      expiresAt,
    });
    await repo.deleteLinksExcept(child.id, id);
    return this.deps.mailer.queueWithin(trx, guardianEmail, 'guardian_consent_granted', locale, {
      username: child.username,
      link: linkWithToken(this.deps.settings.consentUrl, token),
      validForMs: expiresAt.getTime() - now,
    });
  }
}
