import type { ConsentsService } from '../../modules/consents/service.js';
import type { ChildAgreements } from './service.js';

/** The documents the child agreed to, at the versions agreed, titled in the guardian's language. */
export function childAgreements(consents: ConsentsService): ChildAgreements {
  return async (userId, locale) => {
    const [documents, state] = await Promise.all([consents.documents(locale), consents.consentsOf(userId)]);
    const byKey = new Map(documents.map((document) => [document.key, document]));
    return state.consents.flatMap((consent) => {
      const document = byKey.get(consent.key);
      if (!consent.agreed || consent.version === null || !document) return [];
      return [{ key: consent.key, version: consent.version, title: document.title, url: document.url }];
    });
  };
}
