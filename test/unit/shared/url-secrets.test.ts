// R48: the secrets of the connection URLs never reach a line the service or its command line
// writes. A secret sits in a URL's password, in a `password` or `sslpassword` query parameter
// (node-postgres takes both from DATABASE_URL), or in a Redis URL's lone user part (a token);
// each is found in its written and its decoded form, and redacted from a dependency's message.
import { expect } from 'chai';
import { redactSecrets, urlSecrets } from '../../../src/shared/url-secrets.ts';

const none = { databaseUrl: undefined, databaseDirectUrl: undefined, redisUrl: undefined };

describe('secrets of the connection URLs (R48)', () => {
  it('the password of the URL, written and decoded', () => {
    const secrets = urlSecrets({ ...none, databaseUrl: 'postgresql://app:p%40ss-w0rd@db.example:5432/ers' });
    expect(secrets).to.have.members(['p%40ss-w0rd', 'p@ss-w0rd']);
    expect(redactSecrets('password authentication failed: p@ss-w0rd', secrets)).to.equal('password authentication failed: ***');
  });

  it('a password query parameter, as node-postgres reads it', () => {
    const secrets = urlSecrets({ ...none, databaseUrl: 'postgresql://h/db?password=s3cret' });
    expect(secrets).to.include('s3cret');
    expect(redactSecrets('could not connect to postgresql://h/db?password=s3cret', secrets)).to.equal('could not connect to postgresql://h/db?password=***');
  });

  it('sslpassword too, and both names whatever their case, written and decoded (+ is a space)', () => {
    const secrets = urlSecrets({
      ...none,
      databaseUrl: 'postgres://app@h/db?sslmode=verify-full&sslpassword=key%2Bpass&application_name=ers',
      databaseDirectUrl: 'postgres://app@h/db?PassWord=two+words',
    });
    expect(secrets).to.include.members(['key%2Bpass', 'key+pass', 'two+words', 'two words']);
    expect(secrets, 'other parameters are not secrets').not.to.include.members(['verify-full', 'ers']);
  });

  it('a password in the query and in the user part are both secrets', () => {
    const secrets = urlSecrets({ ...none, databaseUrl: 'postgresql://app:first@h/db?password=second' });
    expect(secrets).to.include.members(['first', 'second']);
  });

  it('a Redis URL whose user part is a token (no password): the token', () => {
    const token = 'AbCdEf0123456789TokenOfTheProvider';
    const secrets = urlSecrets({ ...none, redisUrl: `rediss://${token}@cache.example:6380` });
    expect(secrets).to.include(token);
    expect(redactSecrets(`connect to rediss://${token}@cache.example:6380 failed`, secrets)).not.to.include(token);
  });

  it('a Redis user with a password is a name, kept; so is a PostgreSQL user without a password', () => {
    expect(urlSecrets({ ...none, redisUrl: 'rediss://ers-app:s3cret@cache.example:6380' })).to.have.members(['s3cret']);
    expect(urlSecrets({ ...none, databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres' })).to.deep.equal([]);
  });

  it('no empty secret (it would match between every two characters), and a malformed escape keeps its written form', () => {
    const secrets = urlSecrets({ ...none, databaseUrl: 'postgresql://h/db?password=&sslpassword=50%zz', redisUrl: 'redis://cache.example:6379' });
    expect(secrets).to.deep.equal(['50%zz']);
    expect(redactSecrets('abc', [''])).to.equal('abc');
  });

  it('a parameter name that is not well percent-encoded does not stop the others from being found', () => {
    expect(urlSecrets({ ...none, databaseUrl: 'postgresql://h/db?a%zz=1&password=s3cret' })).to.deep.equal(['s3cret']);
  });

  it('a secret that contains another is redacted whole', () => {
    const secrets = urlSecrets({ ...none, databaseUrl: 'postgresql://app:abc@h/db?sslpassword=abcdef' });
    expect(redactSecrets('tried abcdef then abc', secrets)).to.equal('tried *** then ***');
  });

  it('the egress proxy\'s password or lone token, and the OTLP endpoints\' passwords (R26, R45)', () => {
    const secrets = urlSecrets(
      {
        ...none,
        egressProxy: { httpsProxy: 'http://svc:pr0xy%21pw@proxy.corp:3128', httpProxy: 'http://ProxyToken123@proxy.corp:3128', noProxy: undefined },
        otelExporterOtlpEndpoint: 'https://otel:C0llectorPw@collector.example:4318',
      },
      { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: ' https://t:TracesPw@collector.example:4318/v1/traces ' },
    );
    expect(secrets).to.include.members(['pr0xy%21pw', 'pr0xy!pw', 'ProxyToken123', 'C0llectorPw', 'TracesPw']);
    expect(secrets, 'a user beside a password is a name').not.to.include.members(['svc', 'otel', 't']);
  });
});
