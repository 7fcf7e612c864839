import type { ProvidersConfig } from '../providers/config.js';
import { startFakeProvider } from './fake-provider.js';

export interface FakeProviderOptions {
  port: number;
  clientId: string;
  /** Comma-separated provider names to serve as the id-token kind (the others are userinfo). */
  idToken: string;
}

/** `accounts dev fake-provider`: runs until interrupted. */
export async function runFakeProvider(
  options: FakeProviderOptions,
  providers: ProvidersConfig,
): Promise<void> {
  const idTokenNames = options.idToken.split(',').map((name) => name.trim().toLowerCase());
  const fake = await startFakeProvider({ port: options.port, clientId: options.clientId });
  const lines = providers.names.flatMap((name) =>
    Object.entries(fake.env(name, idTokenNames.includes(name) ? 'id-token' : 'userinfo')).map(
      ([variable, value]) => `${variable}=${value}`,
    ),
  );
  const example = providers.names[0] ?? 'alpha';
  console.log(`Fake identity provider listening on ${fake.url} (development only).

Put these lines in a file (say provider.env) and start the service with them in its environment
(set -a; . ./provider.env; set +a; npm start):

${lines.join('\n')}

Get tokens for a user of your choice (access_token for userinfo providers, id_token for id-token ones):

  curl -s '${fake.url}/token?user_id=alice'

(add &email=alice@example.com&email_verified=true for an ID token that vouches for the address)

then, with the service on its port (8080 by default):

  curl -s http://127.0.0.1:8080/v1/auth/register -d type=${example} -d email=alice@example.com \\
    -d username=alice -d gender=0 -d user_agreement=on -d ${example}_user_id=alice -d ${example}_access_token=<token>
  curl -s http://127.0.0.1:8080/v1/auth/login/${example} -d ${example}_user_id=alice -d ${example}_access_token=<token>

Ctrl-C stops it.`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      void fake.close().then(resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
