// The generator's variables of R42-R45 (operator-interface.md "Environment"): a bad value is
// refused with one line naming the variable; the defaults are the ruled ones.
import { expect } from 'chai';
import { ConfigError, DEFAULT_GEMINI_MAX_OUTPUT_TOKENS, DEFAULT_GEMINI_MODELS, loadConfig } from '../../src/config.ts';
import { urlPasswords } from '../support/secret-log-lines.ts';

const BAD: [variable: string, env: Record<string, string>][] = [
  ['GEMINI_MODEL', { GEMINI_MODEL: 'gemini-3.8-flash,,gemini-3.7-flash' }],
  ['GEMINI_MODEL', { GEMINI_MODEL: 'gemini-3.8-flash,gemini-3.8-flash' }],
  ['GEMINI_MODEL', { GEMINI_MODEL: 'models/gemini-3.8-flash,gemini-3.8-flash' }],
  ['GEMINI_MODEL', { GEMINI_MODEL: 'Gemini-3.8-Flash,gemini-3.8-flash' }],
  ['GEMINI_MODEL', { GEMINI_MODEL: 'gemini 3.8 flash' }],
  ['GEMINI_MODEL', { GEMINI_MODEL: 'gemini-3.8-flash;rm' }],
  ['GEMINI_TEMPERATURE', { GEMINI_TEMPERATURE: 'warm' }],
  ['GEMINI_TEMPERATURE', { GEMINI_TEMPERATURE: '2.5' }],
  ['GEMINI_TEMPERATURE', { GEMINI_TEMPERATURE: '-1' }],
  ['GEMINI_THINKING_LEVEL', { GEMINI_THINKING_LEVEL: 'LOW' }],
  ['GEMINI_THINKING_LEVEL', { GEMINI_THINKING_LEVEL: 'deep' }],
  ['GEMINI_MAX_OUTPUT_TOKENS', { GEMINI_MAX_OUTPUT_TOKENS: '100' }],
  ['GEMINI_MAX_OUTPUT_TOKENS', { GEMINI_MAX_OUTPUT_TOKENS: 'many' }],
  ['GOOGLE_GENAI_USE_VERTEXAI', { GOOGLE_GENAI_USE_VERTEXAI: 'yes please' }],
  ['GOOGLE_CLOUD_PROJECT', { GOOGLE_CLOUD_PROJECT: 'Not A Project' }],
  ['GOOGLE_CLOUD_LOCATION', { GOOGLE_CLOUD_LOCATION: 'europe west4' }],
  ['HTTPS_PROXY', { HTTPS_PROXY: 'proxy.corp:3128' }],
  ['https_proxy', { https_proxy: 'socks5://proxy.corp:1080' }],
  ['HTTP_PROXY', { HTTP_PROXY: 'ftp://proxy.corp' }],
  // Node's and undici's proxy support refuse these with an error quoting the whole URL,
  // password included; the WHATWG parser alone would have dropped the CR or kept the `%`.
  ['HTTPS_PROXY', { HTTPS_PROXY: 'http://svc:S3cretPart1\rS3cretPart2@proxy.corp:3128' }],
  ['https_proxy', { https_proxy: 'http://svc:S3cret\tTab@proxy.corp:3128' }],
  ['HTTP_PROXY', { HTTP_PROXY: 'http://svc:50%off@proxy.corp:3128' }],
  ['GEMINI_API_KEY', { REPORT_GENERATOR: 'gemini', GOOGLE_GENAI_USE_VERTEXAI: 'false' }],
];

describe('the generator variables (R42-R45, operator-interface.md)', () => {
  for (const [variable, env] of BAD) {
    it(`${JSON.stringify(env)} is refused with one line naming ${variable}`, () => {
      let error: unknown;
      try {
        loadConfig(env);
      } catch (caught) {
        error = caught;
      }
      expect(error).to.be.instanceOf(ConfigError);
      const message = (error as ConfigError).message;
      expect(message).to.include(variable);
      expect(message).to.not.include('\n');
      // R26: the value is never echoed (it may carry a password), nor its password in any form.
      for (const value of Object.values(env)) if (value.includes('@')) expect(message).not.to.include(value.slice(0, value.indexOf('@')));
      for (const password of urlPasswords(Object.values(env))) expect(message, 'a password reached the message').not.to.include(password);
    });
  }

  it('minimal thinking with a model that refuses it stops the start (R43: 3.7 and 3.8 Flash answer it 400)', () => {
    const gemini = { REPORT_GENERATOR: 'gemini', GEMINI_API_KEY: 'AIza-test', GEMINI_THINKING_LEVEL: 'minimal' };
    expect(() => loadConfig(gemini)).to.throw(ConfigError, /^Invalid GEMINI_THINKING_LEVEL: expected low, medium or high: model gemini-3\.8-flash of GEMINI_MODEL refuses minimal/);
    expect(() => loadConfig({ ...gemini, GEMINI_MODEL: 'gemini-3.5-flash-lite,gemini-3.7-flash-preview-09-2026' })).to.throw(ConfigError, /model gemini-3\.7-flash-preview-09-2026 /);
    // Models that take it, and the offline generator (which has no thinking level), start.
    expect(loadConfig({ ...gemini, GEMINI_MODEL: 'gemini-3.8-flash-lite,gemini-3.6-flash' }).geminiThinkingLevel).to.equal('minimal');
    expect(loadConfig({ GEMINI_THINKING_LEVEL: 'minimal' }).reportGenerator).to.equal('offline');
    expect(loadConfig({ ...gemini, GEMINI_THINKING_LEVEL: 'low' }).geminiModels).to.deep.equal(DEFAULT_GEMINI_MODELS);
  });

  it('a value that breaks its pattern is told what was expected, not "non-blank"', () => {
    expect(() => loadConfig({ GOOGLE_CLOUD_PROJECT: 'Not A Project' })).to.throw(ConfigError, 'Invalid GOOGLE_CLOUD_PROJECT: expected a Google Cloud project id such as my-project-123.');
    expect(() => loadConfig({ GOOGLE_CLOUD_LOCATION: 'europe west4' })).to.throw(ConfigError, 'Invalid GOOGLE_CLOUD_LOCATION: expected a Google Cloud location such as global or europe-west4.');
  });

  it('defaults: two current models, no temperature, thinking level low, an output bound, the Developer API, no proxy', () => {
    const config = loadConfig({});
    expect(config.geminiModels).to.deep.equal(DEFAULT_GEMINI_MODELS);
    expect(config.geminiModels).to.have.lengthOf.at.least(2);
    expect(config).to.include({
      geminiTemperature: undefined,
      geminiThinkingLevel: 'low',
      geminiMaxOutputTokens: DEFAULT_GEMINI_MAX_OUTPUT_TOKENS,
      vertexAi: false,
      googleCloudProject: undefined,
      googleCloudLocation: 'global',
    });
    expect(config.egressProxy).to.deep.equal({ httpsProxy: undefined, httpProxy: undefined, noProxy: undefined });
  });

  it('GEMINI_MODEL is a list in order, spaces around the commas allowed', () => {
    expect(loadConfig({ GEMINI_MODEL: ' gemini-3.8-flash , gemini-3.5-flash-lite ' }).geminiModels).to.deep.equal(['gemini-3.8-flash', 'gemini-3.5-flash-lite']);
    expect(loadConfig({ GEMINI_MODEL: 'gemini-3.7-flash' }).geminiModels).to.deep.equal(['gemini-3.7-flash']);
  });

  it('GEMINI_TEMPERATURE, when set, is a number', () => {
    expect(loadConfig({ GEMINI_TEMPERATURE: '1.0' }).geminiTemperature).to.equal(1);
    expect(loadConfig({ GEMINI_TEMPERATURE: '0' }).geminiTemperature).to.equal(0);
  });

  it('GOOGLE_GENAI_USE_VERTEXAI=true makes gemini the default generator without GEMINI_API_KEY (R44)', () => {
    const config = loadConfig({ GOOGLE_GENAI_USE_VERTEXAI: 'true', GOOGLE_CLOUD_PROJECT: 'ers-prod', GOOGLE_CLOUD_LOCATION: 'europe-west4' });
    expect(config).to.include({ reportGenerator: 'gemini', vertexAi: true, googleCloudProject: 'ers-prod', googleCloudLocation: 'europe-west4' });
    expect(loadConfig({ GOOGLE_GENAI_USE_VERTEXAI: 'false' }).reportGenerator).to.equal('offline');
  });

  it('the proxy variables in either case, upper case first (R45)', () => {
    expect(loadConfig({ https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128', no_proxy: 'internal.example' }).egressProxy).to.deep.equal({
      httpsProxy: 'http://upper:3128',
      httpProxy: undefined,
      noProxy: 'internal.example',
    });
    expect(loadConfig({ http_proxy: 'http://lower:3128' }).egressProxy.httpProxy).to.equal('http://lower:3128');
  });
});
