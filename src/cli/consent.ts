import type { Command } from 'commander';
import type { ConsentText } from '../db/schema.js';
import type { ConsentHistoryEntry } from '../modules/consents/history.js';
import {
  CONSENT_LANGUAGES,
  isDocumentUrl,
  MAX_TITLE_CHARS,
  MAX_URL_LENGTH,
} from '../modules/consents/publish-rules.js';
import type { CurrentDocument } from '../modules/consents/repo.js';
import { DOCUMENT_KEY } from '../modules/consents/service.js';
import { legalPagePath } from '../modules/consents/view.js';
import { readBody } from './consent-body.js';
import type { CommandEnvironment } from './environment.js';
import { OperatorError, printColumns, printJson } from './output.js';
import { recorded } from './recorded.js';
import { printLine } from './terminal.js';

interface PublishOptions {
  version: string;
  title: string[];
  url: string[];
  body: string[];
  lang: string[];
  required?: boolean;
}

const LANGUAGES: readonly string[] = CONSENT_LANGUAGES;

/**
 * Repeatable options collect their values in order. They have no default (commander would show
 * "(default: [])" in `--help`): one never given is absent, and the action reads it as an empty list.
 */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** What commander hands the publish action: the repeatable options given at least once. */
type GivenPublishOptions = Omit<PublishOptions, 'title' | 'url' | 'body' | 'lang'> &
  Partial<Pick<PublishOptions, 'title' | 'url' | 'body' | 'lang'>>;

/**
 * The title and URL per language: the n-th `--lang` goes with the n-th `--title`, `--url` and `--body`.
 * Without `--lang`, one of each is English. With a `--body` per language, `--url` may be left out: each
 * language's page is then the service's own (`ownPage`, /legal/<key>/<version>/<lang>).
 */
export function textsOf(
  options: Pick<PublishOptions, 'title' | 'url' | 'lang' | 'body'>,
  ownPage: (lang: string) => string,
): Record<string, ConsentText> {
  const langs = options.lang.length > 0 ? options.lang : ['en'];
  const each = (count: number) => count === langs.length;
  const bodies = options.body.length;
  if (
    !each(options.title.length) ||
    !(each(bodies) || bodies === 0) ||
    !(each(options.url.length) || each(bodies))
  ) {
    throw new OperatorError(
      `Give one --title, and one --url or --body (or both), per language, in the order of --lang (got ` +
        `${langs.length} language(s), ${options.title.length} title(s), ${options.url.length} URL(s), ` +
        `${bodies} --body file(s))`,
    );
  }
  const texts: Record<string, ConsentText> = {};
  langs.forEach((lang, i) => {
    const title = (options.title[i] ?? '').trim();
    if (!LANGUAGES.includes(lang)) throw new OperatorError(`--lang: must be one of ${LANGUAGES.join(', ')}`);
    if (lang in texts) throw new OperatorError(`--lang: ${lang} is given twice`);
    const url = options.url.length > 0 ? (options.url[i] ?? '').trim() : ownPage(lang);
    if (title === '' || [...title].length > MAX_TITLE_CHARS)
      throw new OperatorError('--title: 1 to 255 characters');
    if (!isDocumentUrl(url) || url.length > MAX_URL_LENGTH)
      throw new OperatorError(`--url: must be a path of this service (/legal/terms) or an http(s) URL`);
    texts[lang] = { title, url };
  });
  return texts;
}

/** The `--body` files' texts by language, in the order of --lang (textsOf has checked the counts). */
async function bodiesOf(
  options: Pick<PublishOptions, 'lang' | 'body'>,
  resolvePath: (file: string) => string,
): Promise<Record<string, string>> {
  const langs = options.lang.length > 0 ? options.lang : ['en'];
  const bodies: Record<string, string> = {};
  for (const [i, file] of options.body.entries()) {
    bodies[langs[i] ?? 'en'] = await readBody(file, resolvePath(file));
  }
  return bodies;
}

function describeDocument(document: CurrentDocument): string[] {
  const text = document.texts.en ?? Object.values(document.texts)[0];
  return [
    document.key,
    String(document.version),
    document.required ? 'required' : 'optional',
    Object.keys(document.texts).sort().join(','),
    text?.title ?? '',
  ];
}

function describeEntry(entry: ConsentHistoryEntry): string[] {
  return [
    entry.key,
    String(entry.version),
    entry.agreed ? 'agreed' : 'withdrawn',
    entry.at,
    entry.channel,
    entry.client_address ?? '-',
    entry.reminded_at ?? '-',
  ];
}

/** `accounts consent publish|list|history|remind`. */
export function registerConsentCommands(program: Command, environment: CommandEnvironment): void {
  const { terminal, withServices, resolvePath } = environment;
  const consent = program
    .command('consent')
    .description('Manage the documents users agree to, and re-confirm marketing consent');

  consent
    .command('publish')
    .description('Publish a new version of a document (created the first time); it becomes the current one')
    .argument('<key>', 'the document key: lower-case letters, digits and _ (terms, marketing_email)')
    .requiredOption('--version <n>', 'the version: greater than the current one')
    .option(
      '--lang <lang>',
      'a language (ko or en) of the next --title, --url and --body; repeat per language',
      collect,
    )
    .option('--title <text>', 'the title in that language (in English without --lang)', collect)
    .option('--url <url>', 'the page in that language: a path of this service or an http(s) URL', collect)
    .option(
      '--body <file>',
      "the text in that language (UTF-8, at most 100 KB); without --url the page is the service's own",
      collect,
    )
    .option('--required', 'sign-up requires it (user_agreement); without it the document is optional')
    .action(async (key: string, given: GivenPublishOptions) => {
      const { title = [], url = [], body = [], lang = [] } = given;
      const options: PublishOptions = { ...given, title, url, body, lang };
      if (!DOCUMENT_KEY.test(key)) {
        throw new OperatorError('KEY: lower-case letters, digits and _ only, at most 64 (marketing_email)');
      }
      const version = /^\d{1,9}$/.test(options.version) ? Number(options.version) : Number.NaN;
      if (Number.isNaN(version)) throw new OperatorError('--version: must be a positive integer');
      const texts = textsOf(options, (lang) => legalPagePath(key, version, lang));
      const bodies = await bodiesOf(options, resolvePath);
      await withServices(({ consents }) =>
        consents.publish({ key, version, required: options.required === true, texts, bodies }),
      );
      const kind = options.required ? 'required' : 'optional';
      printLine(terminal, `Published ${key} version ${version} (${kind}; ${Object.keys(texts).join(', ')}).`);
    });

  consent
    .command('list')
    .description('List every document at its current version')
    .option('--json', 'print the documents as JSON')
    .action(async (options: { json?: boolean }) => {
      const documents = await withServices(({ consents }) => consents.allDocuments());
      if (options.json) printJson(terminal, documents);
      else if (documents.length === 0) printLine(terminal, 'No documents.');
      else
        printColumns(terminal, [
          ['KEY', 'VERSION', 'KIND', 'LANGUAGES', 'TITLE'],
          ...documents.map(describeDocument),
        ]);
    });

  consent
    .command('history')
    .description(
      'Show every consent record of a user, agreements and withdrawals, with when, where from and how',
    )
    .argument('<user>', 'the user: an id, an email or a username')
    .option('--json', 'print the records as JSON')
    .action(async (reference: string, options: { json?: boolean }) => {
      const entries = await recorded(
        environment,
        'user.consents.view',
        async ({ users, consentHistory }, note) => {
          const user = await users.find(reference);
          note.subject(user.id);
          const all: ConsentHistoryEntry[] = [];
          for await (const entry of consentHistory.entries(user.id)) all.push(entry);
          return all;
        },
      );
      if (options.json) printJson(terminal, entries);
      else if (entries.length === 0) printLine(terminal, 'No consent records.');
      else
        printColumns(terminal, [
          ['KEY', 'VERSION', 'ANSWER', 'AT', 'CHANNEL', 'ADDRESS', 'REMINDED'],
          ...entries.map(describeEntry),
        ]);
    });

  consent
    .command('remind')
    .description(
      'Mail users whose marketing consent is two years old (once), and withdraw it 30 days after an ' +
        'unanswered reminder; run daily',
    )
    .option('--json', 'print what was done as JSON')
    .action(async (options: { json?: boolean }) => {
      const run = await withServices(({ consentReminders }) => consentReminders.run());
      if (options.json) printJson(terminal, run);
      else printLine(terminal, `Reminded ${run.reminded} user(s); withdrew ${run.withdrawn} consent(s).`);
    });
}
