import type { ConsentText } from '../../db/schema.js';
import { type FieldFailures, ForbiddenError, NotFoundError, ValidationError } from '../../errors.js';
import { iso } from '../../lib/time.js';
import {
  CONSENT_LANGUAGES,
  cleanBody,
  isDocumentUrl,
  MAX_BODY_BYTES,
  MAX_TITLE_CHARS,
  MAX_URL_LENGTH,
} from '../../modules/consents/publish-rules.js';
import type { CurrentDocument, DocumentVersion } from '../../modules/consents/repo.js';
import type { ConsentsService } from '../../modules/consents/service.js';
import type { ConsentVersionsRepo } from '../../modules/consents/versions-repo.js';
import { legalPagePath } from '../../modules/consents/view.js';
import { type Permission, roleCan } from '../../modules/staff/permissions.js';
import type { StaffActor } from '../console-users/staff-access.js';

/** What the console's consent documents are made of: the consents service `accounts consent` calls. */
export interface ConsoleConsentsDeps {
  consents: Pick<ConsentsService, 'allDocuments' | 'publish'>;
  documentVersion(key: string, version: number): Promise<DocumentVersion | undefined>;
  versions: ConsentVersionsRepo;
}

type Language = (typeof CONSENT_LANGUAGES)[number];

/** A publish as the console sends it: per language a title, and a page URL or a body (or both). */
export interface ConsolePublishInput {
  key: string;
  version: number;
  required?: boolean | undefined;
  texts: Partial<
    Record<Language, { title?: string | undefined; url?: string | undefined; body?: string | undefined }>
  >;
}

/** One version with its texts, as staff read it. */
export interface VersionDetail {
  key: string;
  version: number;
  current_version: number;
  texts: Record<string, ConsentText>;
  bodies: Record<string, string>;
}

const detail = (found: DocumentVersion): VersionDetail => ({
  key: found.key,
  version: found.version,
  current_version: found.currentVersion,
  texts: found.texts,
  bodies: found.bodies,
});

export interface VersionView {
  version: number;
  published_at: string;
  texts: Record<string, ConsentText>;
  body_languages: string[];
}

/**
 * Consent documents for staff: read behind `content.read`, published behind `content.write`. They are the
 * service's texts, nobody's personal data, so no access record; a publish goes through the same
 * `ConsentsService.publish` as `accounts consent publish`, with the command's rules for titles, pages and
 * bodies (modules/consents/publish-rules.ts), answered as 422s naming the field.
 */
export class ConsoleConsents {
  constructor(private readonly deps: ConsoleConsentsDeps) {}

  documents(actor: StaffActor): Promise<CurrentDocument[]> {
    allow(actor, 'content.read');
    return this.deps.consents.allDocuments();
  }

  async versions(actor: StaffActor, key: string): Promise<{ key: string; versions: VersionView[] }> {
    allow(actor, 'content.read');
    const rows = await this.deps.versions.versions(key);
    if (rows.length === 0) throw new NotFoundError('document');
    return { key, versions: rows.map((row) => ({ ...row, published_at: iso(row.published_at) })) };
  }

  async version(actor: StaffActor, key: string, version: number): Promise<VersionDetail> {
    allow(actor, 'content.read');
    const found = await this.deps.documentVersion(key, version);
    if (!found) throw new NotFoundError('document');
    return detail(found);
  }

  /** Publishes the version, which becomes the document's current one (created the first time). */
  async publish(actor: StaffActor, input: ConsolePublishInput): Promise<VersionDetail> {
    allow(actor, 'content.write');
    const texts: Record<string, ConsentText> = {};
    const bodies: Record<string, string> = {};
    const failures: FieldFailures = {};
    for (const lang of CONSENT_LANGUAGES) {
      const given = input.texts[lang];
      const title = given?.title?.trim() ?? '';
      const url = given?.url?.trim() ?? '';
      const body = given?.body === undefined ? undefined : cleanBody(given.body);
      if (title === '' && url === '' && body === undefined) continue;
      if (title === '') failures[`title_${lang}`] = [{ rule: 'required' }];
      else if ([...title].length > MAX_TITLE_CHARS)
        failures[`title_${lang}`] = [{ rule: 'max.string', params: { max: MAX_TITLE_CHARS } }];
      if (url !== '' && (!isDocumentUrl(url) || url.length > MAX_URL_LENGTH))
        failures[`url_${lang}`] = [{ rule: 'url' }];
      if (body !== undefined && 'problem' in body)
        failures[`body_${lang}`] = [
          body.problem === 'too_large'
            ? { rule: 'max.string', params: { max: MAX_BODY_BYTES } }
            : { rule: body.problem === 'nul' ? 'regex' : 'required' },
        ];
      // Without a page elsewhere the service serves the text itself: one of the two is needed.
      if (url === '' && body === undefined) failures[`body_${lang}`] = [{ rule: 'required' }];
      texts[lang] = { title, url: url === '' ? legalPagePath(input.key, input.version, lang) : url };
      if (body !== undefined && 'body' in body) bodies[lang] = body.body;
    }
    if (Object.keys(texts).length === 0) failures.title_ko = [{ rule: 'required' }];
    if (Object.keys(failures).length > 0) throw new ValidationError(failures);
    const { key, version } = input;
    await this.deps.consents.publish({ key, version, required: input.required === true, texts, bodies });
    return detail((await this.deps.documentVersion(key, version)) as DocumentVersion);
  }
}

function allow(actor: StaffActor, permission: Permission): void {
  if (!roleCan(actor.role, permission)) throw new ForbiddenError();
}
