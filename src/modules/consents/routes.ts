import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { parameterBag } from '../../http/params.js';
import { t } from '../../http/response-schema.js';
import { preferredLocale } from '../../validation/messages.js';
import { rules } from '../../validation/rule-list.js';
import { consentUpdateRules } from './rules.js';
import type { ConsentsService } from './service.js';
import {
  consentDocumentShape,
  consentDocumentsExample,
  userConsentsExample,
  userConsentsResponse,
} from './view.js';

export function consentEndpoints(consents: ConsentsService): AnyEndpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/consents/documents',
      summary: 'The documents users agree to, at their current versions',
      description:
        'In the request’s language (`Accept-Language: ko` → Korean, else English; a document published in ' +
        'neither comes in the language it has). Register agrees to every `required` one with ' +
        '`user_agreement`; each optional one is `consent_<key>` on register.',
      tag: 'consents',
      auth: 'none',
      rules: rules({}),
      response: t.object({ documents: t.array(consentDocumentShape) }),
      example: { documents: consentDocumentsExample },
      handle: async ({ request }) => ({
        documents: await consents.documents(preferredLocale(request.headers['accept-language'])),
      }),
    }),
    endpoint({
      method: 'GET',
      path: '/user/consents',
      summary: "The signed-in user's consent to each document",
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: userConsentsResponse,
      example: userConsentsExample,
      handle: async ({ auth }) => consents.consentsOf(auth.user.id),
    }),
    endpoint({
      method: 'POST',
      path: '/user/consents/update',
      summary: 'Agree to or withdraw from documents',
      description:
        '`<key>=on|off` (also `yes|1|true`, `no|0|false`) per document of consents/documents; other ' +
        'parameters are no document and are ignored. `on` records an agreement to the current version ' +
        '(agreeing again re-confirms; it is how a new version of a required document is agreed to). A ' +
        'required document cannot be withdrawn (422 on its key): that is deleting the account. Answers the ' +
        'state after the change, as user/consents.',
      tag: 'user',
      auth: 'required',
      rules: consentUpdateRules,
      response: userConsentsResponse,
      example: userConsentsExample,
      handle: async ({ params, auth, request }) =>
        consents.update(
          auth,
          parameterBag(request.query, request.body),
          params.channel === 'web' ? 'web' : 'update',
          { ip: request.ip, userAgent: request.headers['user-agent'] },
        ),
    }),
  ];
}
