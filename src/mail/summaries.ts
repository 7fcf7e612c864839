import type { MailFoldRow } from '../db/schema.js';
import { type Executor, writeTransaction } from '../db/transaction.js';
import { type PeriodicRun, runPeriodically } from '../lib/periodic.js';
import type { Locale } from '../validation/messages.js';
import { FoldsRepo } from './folds-repo.js';
import type { Mailer, QueuedMail } from './mailer.js';
import { escapeHtml, type MailContent } from './templates.js';

/** How often each instance looks for windows that are over: a summary comes within a minute of its window. */
export const SUMMARY_INTERVAL_MS = 60_000;

/** Addresses summarised per pass; the rest wait for the next pass. */
const ADDRESSES_PER_PASS = 100;

const WORDING: Record<
  Locale,
  { subject: string; greeting: string; lead: (count: number) => string; advice: string }
> = {
  en: {
    subject: 'More mail about your account',
    greeting: 'Hello,',
    lead: (count) =>
      `Your account made more mail than we send to one address at once. ${count === 1 ? 'One message was' : `${count} messages were`} held back; this is what they said:`,
    advice:
      'If you did not do these things, reset your password (it signs out every device) and check your account. A link a held-back message carried was not sent: ask for it again if you need it.',
  },
  ko: {
    subject: '계정 관련 메일 모음',
    greeting: '안녕하세요.',
    lead: (count) =>
      `한 주소로 한 번에 보내는 메일보다 많은 메일이 생겨 ${count}통을 보내지 않았습니다. 그 내용은 다음과 같습니다.`,
    advice:
      '본인이 한 일이 아니라면 비밀번호를 재설정하고(모든 기기에서 로그아웃됩니다) 계정을 확인해 주세요. 보내지 않은 메일의 링크가 필요하면 다시 요청해 주세요.',
  },
};

/** `2026-11-23 12:40 UTC`: the same in both languages. */
function when(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The summary of an address's held-back mails: when each came and its subject, never a body or a link. */
export function renderSummary(locale: Locale, folds: readonly MailFoldRow[]): MailContent {
  const wording = WORDING[locale];
  const lines = folds.map((fold) => `${when(fold.folded_at)}: ${fold.subject}`);
  const text = [
    wording.greeting,
    '',
    wording.lead(folds.length),
    '',
    ...lines.map((line) => `- ${line}`),
    '',
    wording.advice,
    '',
  ].join('\n');
  const html = `<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><title>${escapeHtml(wording.subject)}</title></head>
<body>
<p>${escapeHtml(wording.greeting)}</p>
<p>${escapeHtml(wording.lead(folds.length))}</p>
<ul>
${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('\n')}
</ul>
<p>${escapeHtml(wording.advice)}</p>
</body>
</html>
`;
  return { subject: wording.subject, text, html };
}

export interface SummaryLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/**
 * The summaries of the per-address cap (address-cap.ts): once an address's window is over, the mails held
 * back in it go out as one mail, in the language of the latest. Every instance runs the pass; an address's
 * lock (FoldsRepo.takeDue) makes it one summary per window however many run at once.
 */
export class MailSummaries {
  readonly #folds: FoldsRepo;

  constructor(
    private readonly db: Executor,
    private readonly mailer: Mailer,
  ) {
    this.#folds = new FoldsRepo(db);
  }

  /** One pass: a summary for each address whose window is over. Returns how many were written. */
  async summarizeDue(signal?: AbortSignal): Promise<number> {
    let written = 0;
    for (const address of await this.#folds.dueAddresses(ADDRESSES_PER_PASS)) {
      if (signal?.aborted) break;
      const mail = await writeTransaction(this.db, async (trx): Promise<QueuedMail | undefined> => {
        const folds = await this.#folds.with(trx).takeDue(address);
        const latest = folds.at(-1);
        if (!latest) return undefined;
        const locale: Locale = latest.locale === 'ko' ? 'ko' : 'en';
        const content = renderSummary(locale, folds);
        return this.mailer.queueRenderedWithin(trx, latest.to_address, 'mail_summary', locale, content);
      });
      if (!mail) continue;
      this.mailer.sendSoon(mail);
      written++;
    }
    return written;
  }
}

/** Runs the summaries' pass now and then every `intervalMs`; a failed pass is logged and tried again. */
export function summarizePeriodically(
  summaries: MailSummaries,
  log: SummaryLogger,
  intervalMs = SUMMARY_INTERVAL_MS,
): PeriodicRun {
  return runPeriodically(
    (signal) =>
      summaries.summarizeDue(signal).then(
        (written) => {
          if (written > 0) log.info({ written }, 'held-back mail summarised');
        },
        (error: unknown) => log.warn({ err: error }, 'mail summaries failed'),
      ),
    intervalMs,
  );
}
