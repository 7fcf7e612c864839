import { api } from './api.js';

/** One document of consents/documents, in the page's language (the API is asked in it). */
export interface ConsentDocument {
  key: string;
  version: number;
  title: string;
  url: string;
  required: boolean;
}

/** The documents at their current versions; undefined when the API could not be asked. */
export async function consentDocuments(): Promise<ConsentDocument[] | undefined> {
  const answer = await api<{ documents: ConsentDocument[] }>('/consents/documents');
  return answer.status === 200 ? answer.body.data.documents : undefined;
}

/**
 * A link to a document's text, opened in a new tab so a half-filled form stays as it is. The URL is the
 * operator's (a path of this service or an http(s) address): set as an attribute, never parsed as markup.
 */
export function documentLink(document_: ConsentDocument, text: string): HTMLAnchorElement {
  const link = document.createElement('a');
  link.href = document_.url;
  link.target = '_blank';
  link.rel = 'noopener';
  link.textContent = text;
  return link;
}
