import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { Mailer, QueuedMail } from '../../mail/mailer.js';
import { type Locale, preferredLocale } from '../../validation/messages.js';
import { writeAccountEvent } from '../account-events/outbox.js';
import type { ConsentRemindersRepo, DueReminder, ExpiredConsent } from './reminders-repo.js';
import type { ConsentsRepo } from './repo.js';
import { textIn } from './view.js';

/** An agreement to marketing is re-confirmed every two years (Network Act art. 50(8)). */
export const RECONFIRM_AFTER_MONTHS = 24;
/** A reminder not answered within this long withdraws the agreement. */
export const ANSWER_WITHIN_MS = 30 * 86_400_000;
/** Agreements handled per transaction. */
const BATCH = 200;

export interface ReminderSettings {
  /** Where the user re-confirms (the web profile page). */
  link: string;
}

/** Where an automatic withdrawal is logged (the security activity log), in the withdrawal's transaction. */
export interface ExpiryLog {
  consentChanged(
    trx: Executor,
    userId: string,
    details: Record<string, string | number | boolean>,
  ): Promise<void>;
}

/**
 * The language of a user's reminder. The users table keeps none, so the locale of their most recently updated
 * device decides, read as an Accept-Language tag (`ko`, `ko-KR`, `ko_KR` → Korean): the same rule that picks
 * every other mail's language from its request, English when nothing says Korean (no device either).
 */
export function reminderLocale(deviceLocale: string | null): Locale {
  return preferredLocale(deviceLocale?.replaceAll('_', '-') ?? undefined);
}

/** What one run did. */
export interface ReminderRun {
  /** Mails sent (one per user, listing every agreement of theirs that was due). */
  reminded: number;
  /** Agreements withdrawn because their reminder went unanswered. */
  withdrawn: number;
}

/** `now` less RECONFIRM_AFTER_MONTHS, by the calendar (a leap day's agreement is due on 28 February). */
function reconfirmCutoff(now: Date): Date {
  const cutoff = new Date(now);
  cutoff.setUTCMonth(cutoff.getUTCMonth() - RECONFIRM_AFTER_MONTHS);
  return cutoff;
}

function byUser(due: readonly DueReminder[]): Map<string, DueReminder[]> {
  const users = new Map<string, DueReminder[]>();
  for (const reminder of due) users.set(reminder.user_id, [...(users.get(reminder.user_id) ?? []), reminder]);
  return users;
}

/** What ConsentReminders is built from. */
export interface ConsentRemindersDeps {
  db: Executor;
  consents: ConsentsRepo;
  reminders: ConsentRemindersRepo;
  mailer: Mailer;
  settings: ReminderSettings;
  log: ExpiryLog;
}

/**
 * The marketing re-confirmation, run daily by `accounts consent remind`: mails every user whose agreement
 * to a `marketing_*` or `night_push` document is two years old (once per agreement), and withdraws an
 * agreement whose reminder went unanswered for 30 days. Idempotent: a second run finds nothing more to do.
 * Re-confirming is agreeing again (a newer record), which ends the question.
 */
export class ConsentReminders {
  constructor(private readonly deps: ConsentRemindersDeps) {}

  async run(now = new Date()): Promise<ReminderRun> {
    const withdrawn = await this.withdrawUnanswered(new Date(now.getTime() - ANSWER_WITHIN_MS));
    const reminded = await this.remind(reconfirmCutoff(now));
    return { reminded, withdrawn };
  }

  /** Mails the due agreements' users, a batch per transaction; returns how many mails were sent. */
  private async remind(cutoff: Date): Promise<number> {
    const titles = new Map((await this.deps.consents.currentDocuments()).map((doc) => [doc.key, doc.texts]));
    let mails = 0;
    for (;;) {
      const due = await this.deps.reminders.dueReminders(cutoff, BATCH);
      if (due.length === 0) return mails;
      const queued = await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.reminders.with(trx);
        const sent: QueuedMail[] = [];
        for (const [, reminders] of byUser(due)) {
          // Only the agreements this run marked: another run at the same time mails the rest, never twice.
          const marked = new Set(await repo.markReminded(reminders.map((r) => r.record_id)));
          const mine = reminders.filter((reminder) => marked.has(reminder.record_id));
          const user = mine[0];
          if (!user) continue;
          const locale = reminderLocale(user.device_locale);
          const items = mine.map((r) => {
            const texts = titles.get(r.key);
            return texts ? textIn(texts, locale).title : r.key;
          });
          // A reminder is not a signed-in action's mail: never held back by the per-address cap.
          const mail = await this.deps.mailer.queueWithin(trx, user.email, 'consent_reconfirm', locale, {
            username: user.username,
            link: this.deps.settings.link,
            validForMs: ANSWER_WITHIN_MS,
            items,
          });
          if (mail) sent.push(mail);
        }
        return sent;
      });
      for (const mail of queued) this.deps.mailer.sendSoon(mail);
      mails += queued.length;
      // Every due agreement of the batch is now marked (by this run or another): the next query moves on.
    }
  }

  /**
   * Withdraws the agreements whose reminder is older than `cutoff` and still unanswered, logging a
   * `consent_changed` event for each in the same transaction (the log shows the change exactly when it
   * happened).
   */
  private async withdrawUnanswered(cutoff: Date): Promise<number> {
    let withdrawn = 0;
    for (;;) {
      const batch = await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.reminders.with(trx);
        const reminders = await repo.settleDue(cutoff, BATCH);
        // The users' consent locks, then a fresh look: an answer that committed meanwhile is seen.
        await this.deps.consents.with(trx).lockUsers(reminders.map((reminder) => reminder.user_id));
        const expired = await repo.withdrawUnanswered(reminders.map((reminder) => reminder.record_id));
        for (const consent of expired) {
          const { user_id, key, version } = consent;
          await writeAccountEvent(trx, 'consent.changed', user_id, { user_id, key, version, agreed: false });
          await this.deps.log.consentChanged(trx, user_id, expiryDetails(consent));
        }
        return { settled: reminders.length, withdrawn: expired.length };
      });
      withdrawn += batch.withdrawn;
      if (batch.settled === 0) return withdrawn;
    }
  }
}

/** What the log says of an automatic withdrawal: which agreement, and that nobody made it. */
function expiryDetails(consent: ExpiredConsent): Record<string, string | number | boolean> {
  return { key: consent.key, version: consent.version, agreed: false, by: 'automatic_expiry' };
}
