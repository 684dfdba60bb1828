// Ajv set-up shared by request and response validation: the standard formats, and `uri` as the
// WHATWG URL Standard parses it, which is what the image fetcher will do with the value.
// Only absolute http(s) URLs with a host pass; anything `new URL()` rejects (a zone id, a
// percent-encoded "@" in the host, out-of-range octets, a space in the host) is a 400 with
// rule "format" (ruling R8), never a 500 and never a fetch.
import type { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with a default export: unwrap it once.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function isAbsoluteHttpUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

export function customizeAjv(ajv: Ajv): Ajv {
  addFormats(ajv);
  ajv.addFormat('uri', { type: 'string', validate: isAbsoluteHttpUrl });
  return ajv;
}
