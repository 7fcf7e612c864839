import type { FastifyRequest } from 'fastify';
import type { ServiceErrorCode } from '../errors.js';

/* What one entry of the error catalogue (error-catalogue.ts) is: the codes it is keyed by and the shape of an answer. */

/** The refusals only the HTTP layer makes: the transport, the body parser, the router, /metrics. */
export type TransportErrorCode =
  | 'bad_request'
  | 'body_unparsable'
  | 'url_unparsable'
  | 'host_missing'
  | 'metrics_unauthorized'
  | 'introspection_unauthorized'
  | 'method_not_allowed'
  | 'request_timeout'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'header_fields_too_large';

export type ErrorCode = ServiceErrorCode | TransportErrorCode;

/** How an answer is logged: never with a level a client could raise alerts with at will. */
export interface LogRule<E> {
  level: 'error' | 'warn' | 'info';
  message: string;
  fields(error: E, entry: CatalogueEntry<E>): object;
}

/**
 * One answer of the service, as the wire has it (docs/api.md has the same row). `error_message` is the
 * interface's English in every language: a client branches on the status, `error_type` and `data.status`; the
 * parts that are localised are the 422's field messages (validation/messages.ts, by Accept-Language) and
 * the web pages' own words for each refusal (web/i18n-errors.ts).
 */
export interface CatalogueEntry<E = unknown> {
  status: number;
  type: string;
  message: string;
  /** `data.status`, when the answer has one: what a client branches on between answers of one status. */
  reason?: string;
  /** The rest of `data` (after `status` when there is a reason); `[]` when neither is declared. */
  details?(error: E, request: FastifyRequest | undefined): object;
  /** Unset: not logged (an answer a client asked for, nothing an operator must see). */
  log?: LogRule<E>;
  /** Sent as Retry-After when the error says when to try again. */
  retryAfter?(error: E): number | undefined;
  /** The body may still be on its way: the connection is closed after the answer rather than read to its end. */
  closeConnection?: true;
}
