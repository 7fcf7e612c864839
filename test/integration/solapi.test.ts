import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SolapiConfig } from '../../src/config/sms.js';
import { SolapiError, sendSolapiMessage } from '../../src/sms/solapi.js';
import { type FakeSolapi, startFakeSolapi } from '../helpers/solapi.js';

/** The one call to SOLAPI, against the fake (no app, no database: the request and its answers are what is tested). */
describe('sendSolapiMessage', () => {
  let solapi: FakeSolapi;
  let config: SolapiConfig;
  beforeAll(async () => {
    solapi = await startFakeSolapi();
    config = {
      apiKey: solapi.apiKey,
      apiSecret: solapi.apiSecret,
      sender: solapi.sender,
      apiUrl: solapi.url,
      timeoutMs: 300,
    };
  });
  afterAll(async () => {
    await solapi.close();
  });

  it('sends one SMS with a signed request: national digits, the country code, the sender', async () => {
    const sent = await sendSolapiMessage(config, {
      to: '+821012345678',
      text: '[accounts] 로그인 인증번호 123456',
    });
    expect(sent.id).toMatch(/^M4V\d{8}$/);
    expect(solapi.messages.at(-1)).toEqual({
      to: '01012345678',
      from: solapi.sender,
      text: '[accounts] 로그인 인증번호 123456',
      type: 'SMS',
      country: '82',
    });
    expect(solapi.refused).toEqual([]);
  });

  it('throws what SOLAPI answered to a request signed with another secret', async () => {
    const wrong = { ...config, apiSecret: 'not-the-secret' };
    const error = await sendSolapiMessage(wrong, { to: '+821012345678', text: 'x' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SolapiError);
    expect(error).toMatchObject({ status: 401, errorCode: 'InvalidAPIKey', message: 'bad signature' });
    expect(solapi.refused).toEqual(['bad signature']);
  });

  it('gives up on a SOLAPI that does not answer within the timeout, and on its 5xx', async () => {
    solapi.failWith('hang');
    const hung = await sendSolapiMessage(config, { to: '+821012345678', text: 'x' }).catch((e: unknown) => e);
    expect(hung).toMatchObject({ status: 0, errorCode: 'NetworkError' });
    solapi.failWith('http-500');
    const failed = await sendSolapiMessage(config, { to: '+821012345678', text: 'x' }).catch(
      (e: unknown) => e,
    );
    expect(failed).toMatchObject({ status: 500, errorCode: 'InternalError' });
    solapi.failWith(undefined);
  });
});
