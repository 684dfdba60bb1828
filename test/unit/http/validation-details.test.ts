// Ruling R8: the `details` of 400 invalid_request_payload name the first violation a client can
// act on, as primitives only: a JSON pointer into the body and the rule that failed.
import type { ErrorObject } from 'ajv';
import { expect } from 'chai';
import { firstViolation } from '../../../src/http/validation-details.ts';

/** An Ajv error as openapi-backend reports it: body paths start with /requestBody. */
function ajvError(keyword: string, instancePath: string, params: Record<string, unknown> = {}): ErrorObject {
  return { keyword, instancePath: `/requestBody${instancePath}`, schemaPath: '#', params };
}

describe('firstViolation: details of invalid_request_payload (R8)', () => {
  it('names the pointer and rule of a format error, as in the ruling example (R8)', () => {
    expect(firstViolation([ajvError('format', '/evidence/images/0/url', { format: 'uri' })])).to.deep.equal({
      pointer: '/evidence/images/0/url',
      rule: 'format',
    });
  });

  it('points at the unknown property itself, not at its parent (spec 2.1, R8)', () => {
    expect(firstViolation([ajvError('additionalProperties', '/evidence', { additionalProperty: 'video' })])).to.deep.equal({
      pointer: '/evidence/video',
      rule: 'additionalProperties',
    });
  });

  it('points at the missing property (R8)', () => {
    expect(firstViolation([ajvError('required', '', { missingProperty: 'context' })])).to.deep.equal({
      pointer: '/context',
      rule: 'required',
    });
  });

  it('escapes "~" and "/" in property names as JSON Pointer requires (RFC 6901, R8)', () => {
    expect(firstViolation([ajvError('additionalProperties', '', { additionalProperty: 'a/b~c' })])).to.deep.equal({
      pointer: '/a~1b~0c',
      rule: 'additionalProperties',
    });
  });

  it('prefers the deepest concrete error to the anyOf that wraps it: blank text names /evidence/text (R8)', () => {
    const errors = [
      ajvError('pattern', '/evidence/text', { pattern: '\\S' }),
      ajvError('required', '/evidence', { missingProperty: 'images' }),
      ajvError('anyOf', '/evidence'),
    ];
    expect(firstViolation(errors)).to.deep.equal({ pointer: '/evidence/text', rule: 'pattern' });
  });

  it('a deeper error wins over an earlier shallow one (R8)', () => {
    const errors = [ajvError('type', '/language', { type: 'string' }), ajvError('format', '/evidence/images/1/url')];
    expect(firstViolation(errors)).to.deep.equal({ pointer: '/evidence/images/1/url', rule: 'format' });
  });

  it('falls back to a composite error when there is nothing else (R8)', () => {
    expect(firstViolation([ajvError('oneOf', '/evidence')])).to.deep.equal({ pointer: '/evidence', rule: 'oneOf' });
  });

  it('a root-level violation has the empty pointer (R8)', () => {
    expect(firstViolation([ajvError('type', '', { type: 'object' })])).to.deep.equal({ pointer: '', rule: 'type' });
  });

  it('without any error it still gives primitive details (R8)', () => {
    expect(firstViolation([])).to.deep.equal({ pointer: '', rule: 'schema' });
  });

  it('never carries the rejected value or schema internals: only two string fields (spec 2.4, R8)', () => {
    const error = { ...ajvError('enum', '/context', { allowedValues: ['property_maintenance'] }), data: 'secret-value' };
    const details = firstViolation([error]);
    expect(Object.keys(details).sort()).to.deep.equal(['pointer', 'rule']);
    expect(Object.values(details).every((v) => typeof v === 'string')).to.equal(true);
    expect(JSON.stringify(details)).to.not.include('secret-value');
  });
});
