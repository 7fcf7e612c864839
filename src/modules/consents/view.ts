import type { ConsentText } from '../../db/schema.js';
import { type Static, t } from '../../http/response-schema.js';
import type { Locale } from '../../validation/messages.js';

/** A document as clients show it: in the request's language. */
export const consentDocumentShape = t.object({
  key: t.string(),
  version: t.integer(),
  title: t.string(),
  url: t.string(),
  required: t.boolean(),
});
export type ConsentDocumentView = Static<typeof consentDocumentShape>;

/** The user's latest state of one document. */
export const userConsentShape = t.object({
  key: t.string(),
  /** The version the latest record names (agreed to or withdrawn from); null when the user has none. */
  version: t.nullable(t.integer()),
  agreed: t.boolean(),
  /** When the agreement in force was given; null when not agreed. */
  agreed_at: t.nullable(t.dateTime()),
  /** When the user (or the re-confirmation's expiry) withdrew; null unless withdrawn. */
  withdrawn_at: t.nullable(t.dateTime()),
  required: t.boolean(),
  current_version: t.integer(),
});
export type UserConsentView = Static<typeof userConsentShape>;

export const userConsentsResponse = t.object({ consents: t.array(userConsentShape) });
export type UserConsents = Static<typeof userConsentsResponse>;

/** A document's text in `locale`, else English, else any language it was published in. */
export function textIn(texts: Record<string, ConsentText>, locale: Locale): ConsentText {
  const text = texts[locale] ?? texts.en ?? Object.values(texts)[0];
  // Publishing refuses a document without any language, so this is a broken row, not a request's fault.
  if (!text) throw new Error('consent document version without any text');
  return text;
}

/** The service's own page of one version of a document in one language (src/web/legal.ts serves it). */
export function legalPagePath(key: string, version: number, lang: string): string {
  return `/${['legal', key, String(version), lang].map(encodeURIComponent).join('/')}`;
}

/** One version of a document as its page shows it, in the language it has a text in. */
export interface LegalPage {
  key: string;
  version: number;
  /** The language of `title` and `body`: the one asked for, else English, else the one there is. */
  lang: string;
  title: string;
  body: string;
  /** The document's current version: an older one is still shown (users agreed to it), marked as older. */
  currentVersion: number;
}

/** The language a document's text is shown in: `locale`, else English, else any it has; none → undefined. */
export function bodyLanguage(bodies: Record<string, string>, locale: string): string | undefined {
  if (bodies[locale]) return locale;
  if (bodies.en) return 'en';
  return Object.keys(bodies).find((lang) => bodies[lang]);
}

export const consentDocumentsExample: ConsentDocumentView[] = [
  {
    key: 'privacy',
    version: 1,
    title: 'Collection and use of personal information',
    url: '/legal/privacy/1/en',
    required: true,
  },
  { key: 'terms', version: 1, title: 'Terms of Service', url: '/legal/terms/1/en', required: true },
  {
    key: 'marketing_email',
    version: 1,
    title: 'Marketing by email',
    url: '/legal/marketing_email/1/en',
    required: false,
  },
];

export const userConsentsExample: UserConsents = {
  consents: [
    {
      key: 'privacy',
      version: 1,
      agreed: true,
      agreed_at: '2026-11-23T12:40:05.123Z',
      withdrawn_at: null,
      required: true,
      current_version: 1,
    },
    {
      key: 'terms',
      version: 1,
      agreed: true,
      agreed_at: '2026-11-23T12:40:05.123Z',
      withdrawn_at: null,
      required: true,
      current_version: 2,
    },
    {
      key: 'marketing_email',
      version: 1,
      agreed: false,
      agreed_at: null,
      withdrawn_at: '2026-12-01T08:00:00.000Z',
      required: false,
      current_version: 1,
    },
  ],
};
