import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  CommitFailedError,
  InvalidCredentialsError,
  NotFoundError,
  NotRegisteredError,
  ProviderNotConfiguredError,
  ProviderUnavailableError,
  ServiceUnavailableError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../../src/errors.js';
import { toErrorEnvelope } from '../../src/http/errors.js';

function request(headers: Record<string, string> = {}): FastifyRequest {
  return { headers } as unknown as FastifyRequest;
}

function fastifyError(statusCode: number, code: string, message = 'framework says no') {
  return Object.assign(new Error(message), { statusCode, code });
}

describe('toErrorEnvelope', () => {
  it.each([
    [
      'ValidationError',
      new ValidationError({ email: [{ rule: 'required' }], slug: [{ rule: 'unique' }] }),
      {
        meta: { code: 422, error_type: 'ValidationException', error_message: 'Unprocessable Entity' },
        data: { email: ['The email field is required.'], slug: ['The slug has already been taken.'] },
      },
    ],
    [
      'ValidationError.taken',
      ValidationError.taken('username'),
      {
        meta: { code: 422, error_type: 'ValidationException', error_message: 'Unprocessable Entity' },
        data: { username: ['The username has already been taken.'] },
      },
    ],
    [
      'ValidationError.notFound',
      ValidationError.notFound('email'),
      {
        meta: { code: 422, error_type: 'ValidationException', error_message: 'Unprocessable Entity' },
        data: { email: ['The selected email is invalid.'] },
      },
    ],
    [
      'InvalidCredentialsError',
      new InvalidCredentialsError(),
      {
        meta: { code: 401, error_type: 'Unauthorized', error_message: 'The login credentials are invalid.' },
        data: { status: 'authentication_failed' },
      },
    ],
    [
      'NotRegisteredError',
      new NotRegisteredError(),
      {
        meta: {
          code: 401,
          error_type: 'Unauthorized',
          error_message: 'No account is linked to this identity.',
        },
        data: { status: 'not_registered' },
      },
    ],
    [
      'UnauthenticatedError',
      new UnauthenticatedError(),
      {
        meta: { code: 401, error_type: 'AuthenticationException', error_message: 'Unauthenticated.' },
        data: { status: 'unauthenticated' },
      },
    ],
    [
      'NotFoundError',
      new NotFoundError('post'),
      { meta: { code: 404, error_type: 'NotFoundHttpException', error_message: 'Not Found' }, data: [] },
    ],
    [
      'TooManyRequestsError',
      new TooManyRequestsError(42),
      {
        meta: { code: 429, error_type: 'TooManyRequestsHttpException', error_message: 'Too Many Attempts.' },
        data: { retry_after: 42 },
      },
    ],
    [
      'CommitFailedError',
      new CommitFailedError(new Error('deadlock detected')),
      {
        meta: {
          code: 500,
          error_type: 'InternalServerError',
          error_message: 'Failed to commit transaction.',
        },
        data: [],
      },
    ],
    [
      'ProviderUnavailableError',
      new ProviderUnavailableError('alpha answered 502'),
      {
        meta: {
          code: 502,
          error_type: 'BadGatewayHttpException',
          error_message: 'Identity provider unavailable.',
        },
        data: [],
      },
    ],
    [
      'ProviderNotConfiguredError',
      new ProviderNotConfiguredError('gamma', { userinfo: ['PROVIDER_GAMMA_USERINFO_URL'] }),
      {
        meta: {
          code: 503,
          error_type: 'ServiceUnavailableHttpException',
          error_message: 'Identity provider not configured.',
        },
        data: {
          status: 'provider_not_configured',
          provider: 'gamma',
          variables: { userinfo: ['PROVIDER_GAMMA_USERINFO_URL'] },
        },
      },
    ],
    [
      'ServiceUnavailableError',
      new ServiceUnavailableError(),
      {
        meta: {
          code: 503,
          error_type: 'ServiceUnavailableHttpException',
          error_message: 'Service Unavailable',
        },
        data: [],
      },
    ],
    [
      'a raw connection error',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      {
        meta: {
          code: 503,
          error_type: 'ServiceUnavailableHttpException',
          error_message: 'Service Unavailable',
        },
        data: [],
      },
    ],
    [
      'an unexpected error',
      new TypeError("Cannot read properties of undefined (reading 'id') at SELECT * FROM users"),
      {
        meta: { code: 500, error_type: 'InternalServerError', error_message: 'Internal Server Error' },
        data: [],
      },
    ],
    [
      'a thrown non-error',
      'just a string',
      {
        meta: { code: 500, error_type: 'InternalServerError', error_message: 'Internal Server Error' },
        data: [],
      },
    ],
    [
      'a malformed body',
      fastifyError(400, 'FST_ERR_CTP_INVALID_JSON_BODY'),
      {
        meta: { code: 400, error_type: 'BadRequestHttpException', error_message: 'Bad Request' },
        data: { body: ['The body could not be parsed.'] },
      },
    ],
    [
      'an empty JSON body',
      fastifyError(400, 'FST_ERR_CTP_EMPTY_JSON_BODY'),
      {
        meta: { code: 400, error_type: 'BadRequestHttpException', error_message: 'Bad Request' },
        data: { body: ['The body is empty.'] },
      },
    ],
    [
      'a body over the limit',
      fastifyError(413, 'FST_ERR_CTP_BODY_TOO_LARGE'),
      {
        meta: { code: 413, error_type: 'PayloadTooLargeHttpException', error_message: 'Payload Too Large' },
        data: [],
      },
    ],
    [
      'an unsupported content type',
      fastifyError(415, 'FST_ERR_CTP_INVALID_MEDIA_TYPE'),
      {
        meta: {
          code: 415,
          error_type: 'UnsupportedMediaTypeHttpException',
          error_message: 'Unsupported Media Type',
        },
        data: [],
      },
    ],
    [
      'a request timeout',
      fastifyError(408, 'FST_ERR_REQUEST_TIMEOUT', 'Request Timeout'),
      {
        meta: { code: 408, error_type: 'RequestTimeoutHttpException', error_message: 'Request Timeout' },
        data: [],
      },
    ],
    [
      'another client error of a library, in its own words',
      fastifyError(406, 'FST_INVALID_JSON_FIELD_ERROR', 'a request field is not a valid JSON as declared'),
      {
        meta: { code: 400, error_type: 'BadRequestHttpException', error_message: 'Bad Request' },
        data: { body: ['The body could not be parsed.'] },
      },
    ],
    [
      'a framework 5xx',
      fastifyError(500, 'FST_ERR_SOMETHING', 'internal detail'),
      {
        meta: { code: 500, error_type: 'InternalServerError', error_message: 'Internal Server Error' },
        data: [],
      },
    ],
  ])('maps %s', (_name, error, envelope) => {
    expect(toErrorEnvelope(error, request())).toEqual(envelope);
  });

  it('renders validation messages in Korean when the client prefers it', () => {
    const error = new ValidationError({ email: [{ rule: 'required' }] });
    expect(toErrorEnvelope(error, request({ 'accept-language': 'ko-KR,ko;q=0.9' })).data).toEqual({
      email: ['이메일 필드는 필수입니다.'],
    });
  });
});
