export type { EvidenceEntry, TestRecord } from '../evidence/evidence.ts';
export { REDACTED, redactHeaders, redactJson, redactText, registerSecret } from '../evidence/redact.ts';
export { AuthError, AuthSession, type TokenPair } from './auth-session.ts';
export { ClientDiagnostic, type DiagnosticKind, describeBody, diagnoseNetworkError } from './diagnostics.ts';
export { closeHttp, type Exchange, expectJson, send } from './http.ts';
export { Limiter } from './limiter.ts';
export {
  type ClientSettings,
  type Credentials,
  HttpSpeakClient,
  type RequestOptions,
  type SignedFetchOptions,
  type SpeakClient,
} from './speak-client.ts';
