// A Gemini model's id as the rules about model families read it (R42, R43): without its resource
// path (`models/`, `publishers/google/models/`), in lower case. Kept apart from the adapter so that
// the configuration check reads ids the same way without loading the SDK.
export function modelId(model: string): string {
  return model.slice(model.lastIndexOf('/') + 1).toLowerCase();
}
