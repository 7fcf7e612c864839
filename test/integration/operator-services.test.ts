import { describe, expect, it } from 'vitest';
import type { OperatorServices } from '../../src/cli/context.js';
import { InvalidCredentialsError } from '../../src/errors.js';
import type { AuthContext } from '../../src/http/auth-context.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectOk, postForm } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { eventsOf, type LoggedEvent } from '../helpers/security-events.js';
import { buildTestOperatorServices } from '../helpers/services.js';

/** What a request from `app.inject` is, as the services see its client. */
const CLIENT = { ip: '127.0.0.1', userAgent: 'OperatorServicesTest/1.0' };
const FROM_CLIENT = { 'user-agent': CLIENT.userAgent };

/**
 * The operator commands' services (cli/context.ts), built on a test app's database: they come from the
 * server's factories, so what they do is logged exactly as the server's own paths log it.
 */
describe.each(backends)('%s: the operator commands’ services', (backend) => {
  const ctx = useTestApp(backend);

  const operator = (): OperatorServices => buildTestOperatorServices(ctx);

  const authOf = async (services: OperatorServices, token: string): Promise<AuthContext> => {
    const auth = await services.tokens.authenticate(token);
    if (!auth) throw new Error('the token signs no one in');
    return auth;
  };

  const eventsOfType = async (userId: string, type: string): Promise<LoggedEvent[]> =>
    (await eventsOf(ctx.database.handle, userId)).filter((event) => event.type === type);

  it('log a consent change as user/consents/update logs it', async () => {
    const viaServer = await registerUser(ctx.app);
    const viaOperator = await registerUser(ctx.app);
    expectOk(
      await postForm(
        ctx.app,
        '/v1/user/consents/update',
        { marketing_email: 'on' },
        { ...bearer(viaServer.token), ...FROM_CLIENT },
      ),
    );
    const services = operator();
    const auth = await authOf(services, viaOperator.token);
    await services.consents.update(auth, { marketing_email: 'on' }, 'update', CLIENT);

    const logged = await eventsOfType(viaServer.id, 'consent_changed');
    expect(logged).toHaveLength(1);
    expect(await eventsOfType(viaOperator.id, 'consent_changed')).toEqual(logged);
  });

  it('log a revoked session as user/tokens/:id/revoke logs it', async () => {
    const services = operator();
    const revokeSecondSession = async (viaServer: boolean) => {
      const user = await registerUser(ctx.app);
      const second = expectOk<{ user: { api_token: string } }>(
        await postForm(ctx.app, '/v1/auth/login/email', { email: user.email, password: user.password }),
      ).user.api_token;
      const { tokenId } = await authOf(services, second);
      if (viaServer) {
        expectOk(
          await postForm(
            ctx.app,
            `/v1/user/tokens/${tokenId}/revoke`,
            {},
            {
              ...bearer(user.token),
              ...FROM_CLIENT,
            },
          ),
        );
      } else {
        await services.tokens.revokeOwn(await authOf(services, user.token), tokenId, CLIENT);
      }
      return { logged: await eventsOfType(user.id, 'token_revoked'), tokenId };
    };

    const server = await revokeSecondSession(true);
    const command = await revokeSecondSession(false);
    const event = (tokenId: string) => ({
      type: 'token_revoked',
      ip: CLIENT.ip,
      user_agent: CLIENT.userAgent,
      details: { token_id: tokenId },
    });
    expect(server.logged).toEqual([event(server.tokenId)]);
    expect(command.logged).toEqual([event(command.tokenId)]);
  });

  it('take a scheduled deletion back with the password as auth/deletion/cancel does', async () => {
    const { scheduledDeletions } = operator();
    // `accounts user delete USER --yes`: scheduled by the operator, for both.
    const scheduled = async () => {
      const user = await registerUser(ctx.app);
      expect(await scheduledDeletions.schedule({ id: user.id }, 'en')).toBeInstanceOf(Date);
      return user;
    };
    const viaServer = await scheduled();
    const viaOperator = await scheduled();
    const cancel = (email: string, password: string) =>
      postForm(ctx.app, '/v1/auth/deletion/cancel', { email, password }, FROM_CLIENT);

    expectAuthenticationFailed(await cancel(viaServer.email, `${viaServer.password}-wrong`));
    expectOk(await cancel(viaServer.email, viaServer.password));
    await expect(
      scheduledDeletions.cancelWithPassword(viaOperator.email, `${viaOperator.password}-wrong`, CLIENT),
    ).rejects.toBeInstanceOf(InvalidCredentialsError);
    const restored = await scheduledDeletions.cancelWithPassword(
      viaOperator.email,
      viaOperator.password,
      CLIENT,
    );
    expect(restored.user.id).toBe(viaOperator.id);

    const trail = async (userId: string) =>
      (await eventsOf(ctx.database.handle, userId)).map(({ type, ip, user_agent }) => ({
        type,
        ip,
        user_agent,
      }));
    const logged = await trail(viaServer.id);
    expect(logged.map((event) => event.type)).toContain('deletion_cancelled');
    expect(await trail(viaOperator.id)).toEqual(logged);
  });
});
