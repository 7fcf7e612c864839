import { parseArgs } from 'node:util';
import type { ProvidersConfig } from '../providers/config.js';
import { startFakeProvider } from './fake-provider.js';

export const FAKE_PROVIDER_USAGE = `Usage: accounts dev fake-provider [--port 9400] [--client-id accounts-dev] [--id-token beta]

Starts a development identity provider on 127.0.0.1 and prints the PROVIDER_* settings that point every
provider in PROVIDERS at it: those named by --id-token as the id-token kind, the others as userinfo.`;

/** `accounts dev fake-provider`: runs until interrupted. */
export async function runFakeProvider(args: string[], providers: ProvidersConfig): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string', default: '9400' },
      'client-id': { type: 'string', default: 'accounts-dev' },
      'id-token': { type: 'string', default: 'beta' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be 0-65535 (got "${values.port}")`);
  const idTokenNames = values['id-token'].split(',').map((name) => name.trim().toLowerCase());
  const fake = await startFakeProvider({ port, clientId: values['client-id'] });
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
