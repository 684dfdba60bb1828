// R44: the fixed reasons of a Vertex AI credential failure, as GenerationError reasons
// (`credentials_<why>`). A module of its own, without google-auth-library, so that the log-line
// builder can know them without loading the library in the offline mode.
export const CREDENTIAL_REASON =
  /^credentials_(key_file_unreadable|key_file_invalid|token_endpoint_unreachable|token_endpoint_timeout|token_endpoint_http_\d{3}|no_default_credentials|no_project_id|error)$/;
