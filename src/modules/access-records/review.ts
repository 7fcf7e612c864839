import type { AccessReviewRepo } from './review-repo.js';

/**
 * The monthly review of the access records (the law asks for one at least monthly): what in a month
 * deserves a person's look. The bounds are constants, each with its reason; a finding is a prompt to ask,
 * not a verdict.
 */

/**
 * Fields shown in full by one person in a month. Support shows a field to answer a ticket about it, a
 * few a day at most; fifty in a month is more than tickets explain.
 */
export const UNMASKS_PER_MONTH = 50;
/** Exports by one person in a month: an export is a whole result leaving the console, rare by nature. */
export const EXPORTS_PER_MONTH = 5;
/** Rows exported by one person in a month, however few the exports: a thousand people's data is a list. */
export const EXPORTED_ROWS_PER_MONTH = 1000;
/**
 * Distinct people one actor touched in one clock hour. Handling a ticket takes minutes, so thirty people in
 * an hour is walking through accounts, not answering them.
 */
export const SUBJECTS_PER_HOUR = 30;

/** Snake case, as the API's envelopes and the commands' JSON name their fields. */
interface Actor {
  actor_kind: 'staff' | 'cli';
  actor: string;
}

export type ReviewFinding =
  | (Actor & { kind: 'unmasks'; count: number; threshold: number })
  | (Actor & { kind: 'exports'; count: number; rows: number; threshold: { exports: number; rows: number } })
  | (Actor & { kind: 'outside_hours'; count: number; first: string; last: string })
  | (Actor & { kind: 'many_subjects'; hour: string; subjects: number; threshold: number });

export interface MonthlyReview {
  month: string;
  time_zone: string;
  working_hours: string;
  working_days: string;
  from: string;
  until: string;
  findings: ReviewFinding[];
}

/** A month as `YYYY-MM` (2000–2999), or undefined. */
export function parseMonth(text: string): { year: number; month: number } | undefined {
  const match = /^(2\d{3})-(0[1-9]|1[0-2])$/.exec(text);
  return match ? { year: Number(match[1]), month: Number(match[2]) } : undefined;
}

export interface ReviewSettings {
  timeZone: string;
  workingHours: { start: number; end: number; text: string };
  /** ISO weekdays (1 Monday … 7 Sunday): a record on any other day is outside the working week. */
  workingDays: { days: number[]; text: string };
}

export class AccessReview {
  constructor(
    private readonly repo: AccessReviewRepo,
    private readonly settings: ReviewSettings,
  ) {}

  /** The review of `month` (`YYYY-MM`, read in the configured zone); throws RangeError on another shape. */
  async month(month: string): Promise<MonthlyReview> {
    const parsed = parseMonth(month);
    if (parsed === undefined) throw new RangeError(`"${month}" is not a month such as 2026-03`);
    const { timeZone, workingHours, workingDays } = this.settings;
    const period = await this.repo.period(parsed.year, parsed.month, timeZone);
    const [unmasks, exports, outside, busy] = await Promise.all([
      this.repo.countsByActor(period, 'user.unmask.', UNMASKS_PER_MONTH),
      this.repo.exportsByActor(period, EXPORTS_PER_MONTH, EXPORTED_ROWS_PER_MONTH),
      this.repo.outsideHours(period, timeZone, workingHours, workingDays.days),
      this.repo.manySubjects(period, SUBJECTS_PER_HOUR),
    ]);
    const actor = (row: { actor_kind: 'staff' | 'cli'; actor: string }): Actor => ({
      actor_kind: row.actor_kind,
      actor: row.actor,
    });
    const findings: ReviewFinding[] = [
      ...unmasks.map((row) => ({
        kind: 'unmasks' as const,
        ...actor(row),
        count: row.count,
        threshold: UNMASKS_PER_MONTH,
      })),
      ...exports.map((row) => ({
        kind: 'exports' as const,
        ...actor(row),
        count: row.count,
        rows: row.rows,
        threshold: { exports: EXPORTS_PER_MONTH, rows: EXPORTED_ROWS_PER_MONTH },
      })),
      ...outside.map((row) => ({
        kind: 'outside_hours' as const,
        ...actor(row),
        count: row.count,
        first: row.first.toISOString(),
        last: row.last.toISOString(),
      })),
      ...busy.map((row) => ({
        kind: 'many_subjects' as const,
        ...actor(row),
        hour: row.hour.toISOString(),
        subjects: row.count,
        threshold: SUBJECTS_PER_HOUR,
      })),
    ];
    return {
      month,
      time_zone: timeZone,
      working_hours: workingHours.text,
      working_days: workingDays.text,
      from: period.from.toISOString(),
      until: period.until.toISOString(),
      findings,
    };
  }
}
