// Local stand-ins for where Application Default Credentials come from (R44), speaking the real
// protocols as google-auth-library and gcp-metadata call them:
// - the metadata server of Cloud Run, GKE and GCE (reached at GCE_METADATA_HOST): every request
//   must carry `Metadata-Flavor: Google` (403 otherwise, as the real one answers), and every
//   answer carries it back (the library refuses an answer without it);
// - an OAuth 2.0 token endpoint (a key file's token_uri), taking the JWT-bearer grant.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface SeenAuthRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

export interface AuthServer {
  readonly url: string;
  /** host:port, for GCE_METADATA_HOST. */
  readonly host: string;
  readonly requests: SeenAuthRequest[];
  /** The access token it issues. */
  readonly token: string;
  close(): Promise<void>;
}

async function serve(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void, port = 0): Promise<{ server: Server; requests: SeenAuthRequest[]; url: string; host: string; close(): Promise<void> }> {
  const requests: SeenAuthRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
      handle(req, body, res);
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    server,
    requests,
    url: `http://127.0.0.1:${bound}`,
    host: `127.0.0.1:${bound}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A metadata server for `project` whose default service account has `token`; on `port` when given. */
/** `tokenHangs`: the token path takes the request and never answers (a metadata server under strain). */
export async function startMetadataServer(project: string, port = 0, { tokenHangs = false } = {}): Promise<AuthServer> {
  const token = `ya29.metadata-${randomBytes(16).toString('hex')}`;
  const flavor = { 'Metadata-Flavor': 'Google' };
  const served = await serve((req, _body, res) => {
    if (req.headers['metadata-flavor'] !== 'Google') {
      res.writeHead(403, { 'content-type': 'text/plain' }).end('Missing required header: Metadata-Flavor');
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/computeMetadata/v1/instance' || path === '/computeMetadata/v1/instance/') {
      res.writeHead(200, { ...flavor, 'content-type': 'application/text' }).end('attributes/\nhostname\nid\nservice-accounts/\nzone\n');
    } else if (path === '/computeMetadata/v1/instance/service-accounts/default/token') {
      if (tokenHangs) return;
      res.writeHead(200, { ...flavor, 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
    } else if (path === '/computeMetadata/v1/project/project-id') {
      res.writeHead(200, { ...flavor, 'content-type': 'application/text' }).end(project);
    } else if (path === '/computeMetadata/v1/universe/universe-domain') {
      res.writeHead(200, { ...flavor, 'content-type': 'application/text' }).end('googleapis.com');
    } else {
      res.writeHead(404, { ...flavor, 'content-type': 'text/html' }).end('Not Found');
    }
  }, port);
  return { url: served.url, host: served.host, requests: served.requests, token, close: served.close };
}

/** An OAuth 2.0 token endpoint answering the JWT-bearer grant of a service-account key. */
export async function startTokenEndpoint(): Promise<AuthServer> {
  const token = `ya29.keyfile-${randomBytes(16).toString('hex')}`;
  const served = await serve((req, body, res) => {
    const form = new URLSearchParams(body);
    if (req.method !== 'POST' || form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !form.get('assertion')) {
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ access_token: token, expires_in: 3599, token_type: 'Bearer' }));
  });
  return { url: served.url, host: served.host, requests: served.requests, token, close: served.close };
}

export interface ServiceAccountKey {
  readonly json: string;
  readonly privateKeyId: string;
  /** The base64 body of the PEM (what would show if the key leaked into a log). */
  readonly privateKeyBody: string;
}

/** A service-account key file's contents with a fresh RSA key, its token_uri as given. */
export function serviceAccountKey(project: string, tokenUri: string): ServiceAccountKey {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privateKeyId = randomBytes(20).toString('hex');
  const json = JSON.stringify({
    type: 'service_account',
    project_id: project,
    private_key_id: privateKeyId,
    private_key: pem,
    client_email: `ers-test@${project}.iam.gserviceaccount.com`,
    client_id: String(BigInt(`0x${randomUUID().replaceAll('-', '').slice(0, 15)}`)),
    auth_uri: 'https://accounts.google.com/o/oauth2/auth',
    token_uri: tokenUri,
    universe_domain: 'googleapis.com',
  });
  const privateKeyBody = pem.split('\n').filter((l) => l !== '' && !l.startsWith('-----')).join('');
  return { json, privateKeyId, privateKeyBody };
}
