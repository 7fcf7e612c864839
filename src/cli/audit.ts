import type { Command } from 'commander';
import type { ChainBreak } from '../modules/access-records/chain.js';
import type { MonthlyReview, ReviewFinding } from '../modules/access-records/review.js';
import { parseMonth } from '../modules/access-records/review.js';
import type { ChainVerdict } from '../modules/access-records/service.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { printLine } from './terminal.js';

const PROBLEMS: Record<Exclude<ChainBreak, 'missing_before'>, string> = {
  prev_hash_mismatch: 'it does not chain to the record before it (that one was replaced)',
  hash_mismatch: 'its fields do not give its hash (it was changed after it was written)',
  missing_after: 'it is missing: the chain ends before the last record the head names (deleted)',
  after_head: 'it comes after the last record the chain names (written by hand, not appended)',
};

/** What is wrong with the first record that does not verify, for a person. */
function problemText(verdict: Extract<ChainVerdict, { ok: false }>): string {
  if (verdict.problem !== 'missing_before') return PROBLEMS[verdict.problem];
  const last = (BigInt(verdict.seq) - 1n).toString();
  return verdict.missingFrom === last
    ? `record ${last} before it is missing (deleted)`
    : `records ${verdict.missingFrom} to ${last} before it are missing (deleted)`;
}

/** The verdict as JSON: what a monitor reads (snake_case, as the commands' other JSON). */
function verdictJson(verdict: ChainVerdict): object {
  if (verdict.ok) {
    return {
      ok: true,
      records: verdict.records,
      anchor_seq: verdict.anchorSeq,
      last_seq: verdict.lastSeq,
      last_hash: verdict.lastHash,
    };
  }
  return {
    ok: false,
    records: verdict.records,
    first_bad: { seq: verdict.seq, problem: verdict.problem, missing_from: verdict.missingFrom ?? null },
  };
}

function brokenLine(verdict: Extract<ChainVerdict, { ok: false }>): string {
  const earlier = `${verdict.records} earlier record${verdict.records === 1 ? '' : 's'} verified`;
  return `The access records do not verify: record ${verdict.seq} fails: ${problemText(verdict)}; ${earlier}.`;
}

function findingLine(finding: ReviewFinding): string[] {
  const who = `${finding.actor_kind}:${finding.actor}`;
  switch (finding.kind) {
    case 'unmasks':
      return ['unmasks', who, `${finding.count} fields shown in full (bound ${finding.threshold})`];
    case 'exports':
      return ['exports', who, `${finding.count} exports, ${finding.rows} rows`];
    case 'outside_hours':
      return ['outside hours', who, `${finding.count} records, ${finding.first} to ${finding.last}`];
    case 'many_subjects':
      return ['many subjects', who, `${finding.subjects} people in the hour from ${finding.hour}`];
  }
}

function printReview(environment: CommandEnvironment, review: MonthlyReview): void {
  const { terminal } = environment;
  printLine(
    terminal,
    `Review of ${review.month} (${review.time_zone}, working hours ${review.working_hours}, ${review.working_days}): ` +
      `${review.findings.length === 0 ? 'nothing to look at.' : `${review.findings.length} to look at.`}`,
  );
  if (review.findings.length > 0) {
    printColumns(terminal, [['WHAT', 'WHO', 'DETAIL'], ...review.findings.map(findingLine)]);
  }
}

/** `accounts audit verify [--json]` and `accounts audit review --month YYYY-MM [--json]`. */
export function registerAuditCommands(program: Command, environment: CommandEnvironment): void {
  const { terminal, withServices } = environment;
  const audit = program
    .command('audit')
    .description('Verify and review the access records (who looked at or changed whose data)');

  audit
    .command('verify')
    .description(
      'Walk the hash chain of the access records from the oldest kept one to the last and name the first ' +
        'record that does not verify (a row changed or deleted in the database). Exit 1 when one does not',
    )
    .option('--json', 'print {"ok","records",…} or {"ok":false,"first_bad":{"seq","problem"}} as JSON')
    .action(async (options: { json?: boolean }) => {
      const verdict = await withServices(({ accessRecords }) => accessRecords.verify());
      if (options.json) printJson(terminal, verdictJson(verdict));
      if (!verdict.ok) throw new OperatorError(brokenLine(verdict));
      if (!options.json) {
        printLine(
          terminal,
          verdict.records === 0
            ? 'The access records verify: there are none.'
            : `The access records verify: ${verdict.records} records, ${verdict.anchorSeq} to ${verdict.lastSeq}; ` +
                `the last hash is ${verdict.lastHash}.`,
        );
      }
    });

  audit
    .command('review')
    .description(
      'List what in a month deserves a look: many fields shown in full or exports by one person, access ' +
        'outside CONSOLE_WORKING_HOURS, many people touched in one hour by one actor',
    )
    .requiredOption('--month <YYYY-MM>', 'the month, in CONSOLE_TIME_ZONE')
    .option('--json', 'print the review as JSON')
    .action(async (options: { month: string; json?: boolean }) => {
      if (parseMonth(options.month) === undefined) {
        throw new OperatorError(`--month: a month such as 2026-03 (got "${options.month}")`);
      }
      const review = await withServices(({ accessReview }) => accessReview.month(options.month));
      if (options.json) printJson(terminal, review);
      else printReview(environment, review);
    });
}
