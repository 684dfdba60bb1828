// Ruling R0: every schema of the contract is strict. The whole document is walked (every schema
// at every depth: components, parameters, headers, request bodies, responses, and inside each
// schema its properties, items, additionalProperties and allOf / anyOf / oneOf / not members)
// and every open object schema is named by its JSON pointer.
import { expect } from 'chai';
import { contractDocument } from '../../support/contract-validator.ts';
import { openSchemas, refsOf, schemasOf } from './open-schemas.ts';

// One open schema in each place a schema can sit, and strict ones beside them.
const open = { type: 'object', properties: { a: { type: 'string' } } };
const strict = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } };
const SAMPLE = {
  openapi: '3.0.3',
  paths: {
    '/things/{id}': {
      parameters: [{ name: 'id', in: 'path', schema: open }],
      post: {
        parameters: [{ name: 'q', in: 'query', content: { 'application/json': { schema: open } } }],
        requestBody: { content: { 'application/json': { schema: { ...strict, properties: { nested: open } } } } },
        responses: {
          '200': {
            headers: { 'x-h': { schema: open } },
            content: { 'application/json': { schema: { type: 'array', items: open }, example: { properties: {} } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Strict: strict,
      Map: { type: 'object', additionalProperties: open },
      OpenMap: { type: 'object', additionalProperties: true },
      Bare: { type: 'object' },
      Composite: { allOf: [{ $ref: '#/components/schemas/Strict' }, open], oneOf: [strict, open], anyOf: [open], not: open },
      Narrowed: { ...strict, properties: { error: { allOf: [{ $ref: '#/components/schemas/Strict' }], properties: { code: { type: 'string' } } } } },
    },
    parameters: { P: { name: 'p', in: 'header', schema: open } },
    headers: { H: { schema: open } },
    requestBodies: { B: { content: { 'application/json': { schema: open } } } },
    responses: { R: { description: 'r', content: { 'application/json': { schema: open } } } },
  },
};

describe('every schema of the contract is strict (R0)', () => {
  it('the walk names an open schema wherever it sits, and passes strict ones and typed maps (the check itself)', () => {
    expect(openSchemas(SAMPLE).sort()).to.deep.equal(
      [
        '#/paths/~1things~1{id}/parameters/0/schema',
        '#/paths/~1things~1{id}/post/parameters/0/content/application~1json/schema',
        '#/paths/~1things~1{id}/post/requestBody/content/application~1json/schema/properties/nested',
        '#/paths/~1things~1{id}/post/responses/200/headers/x-h/schema',
        '#/paths/~1things~1{id}/post/responses/200/content/application~1json/schema/items',
        '#/components/schemas/Map/additionalProperties',
        '#/components/schemas/OpenMap',
        '#/components/schemas/Bare',
        '#/components/schemas/Composite/allOf/1',
        '#/components/schemas/Composite/anyOf/0',
        '#/components/schemas/Composite/oneOf/1',
        '#/components/schemas/Composite/not',
        '#/components/schemas/Narrowed/properties/error',
        '#/components/parameters/P/schema',
        '#/components/headers/H/schema',
        '#/components/requestBodies/B/content/application~1json/schema',
        '#/components/responses/R/content/application~1json/schema',
      ].sort(),
    );
  });

  it('walks the whole contract: component, inline and nested schemas alike', () => {
    const pointers = schemasOf(contractDocument).map((s) => s.pointer);
    expect(pointers.length).to.be.at.least(80);
    expect(pointers).to.include.members([
      '#/components/schemas/UnauthorizedError/properties/error',
      '#/components/schemas/UnauthorizedError/properties/error/properties/code',
      '#/components/schemas/CreateEvidenceReportTooManyRequestsError/properties/error',
      '#/components/schemas/TextEvidence/properties/images',
      '#/components/schemas/ErrorDetails/additionalProperties/anyOf/2',
      '#/components/parameters/IdempotencyKey/schema',
      '#/components/headers/RateLimit/schema',
    ]);
  });

  it('every $ref points into #/components, where the walk reads each target', () => {
    const outside = refsOf(contractDocument).filter(({ ref }) => !ref.startsWith('#/components/'));
    expect(outside).to.deep.equal([]);
  });

  it('no schema is open: each with properties has additionalProperties: false, and no object is left unconstrained', () => {
    expect(openSchemas(contractDocument), 'open schemas (JSON pointers)').to.deep.equal([]);
  });

  it('each per-status error body is one strict object with its own narrowed code list (no allOf with an open sibling)', () => {
    const bodies = schemasOf(contractDocument).filter(({ schema }) => {
      const code = (schema.properties as Record<string, Record<string, unknown>> | undefined)?.code;
      return Array.isArray(code?.enum);
    });
    // 401 and 500 (shared by every operation), POST 400 403 409 422 429 (two bodies) 502 503,
    // GET usage 403 503, GET report 403 404 503 (R54).
    expect(bodies).to.have.length(15);
    for (const { pointer, schema } of bodies) {
      expect(schema.additionalProperties, pointer).to.equal(false);
      expect(schema.required, pointer).to.include.members(['code', 'message', 'requestId']);
    }
    expect(schemasOf(contractDocument).filter(({ schema }) => 'allOf' in schema).map((s) => s.pointer)).to.deep.equal([]);
  });
});
