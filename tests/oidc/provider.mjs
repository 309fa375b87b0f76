// A real OpenID provider (panva's oidc-provider) on 127.0.0.1 and a free port, for the sign-in tests.
// Configured by environment: OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URIS (comma-separated).
// Prints one JSON line {"issuer": "..."} on stdout once it listens; stops on SIGTERM or stdin close.
import http from 'node:http';
import Provider from 'oidc-provider';

const clientId = process.env.OIDC_CLIENT_ID ?? 'somnium-lobby';
const clientSecret = process.env.OIDC_CLIENT_SECRET ?? 'lobby-secret';
const redirectUris = (process.env.OIDC_REDIRECT_URIS ?? '').split(',').filter(Boolean);

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  const provider = new Provider(issuer, {
    clients: [{
      // A native client: its loopback redirect URIs match any port (RFC 8252), so one provider
      // serves every test's lobby server on its own free port.
      application_type: 'native',
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    }],
    // Every login name is an account; its display name is a claim released with the profile scope.
    async findAccount(ctx, id) {
      return {
        accountId: id,
        async claims() { return { sub: id, name: `Player ${id}` }; },
      };
    },
    claims: { openid: ['sub'], profile: ['name'] },
    // PKCE S256 for every client, the confidential one included.
    pkce: { required: () => true },
    cookies: { keys: ['somnium-test-cookie-key'] },
  });
  server.on('request', provider.callback());
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('end', stop);
process.stdin.resume();
