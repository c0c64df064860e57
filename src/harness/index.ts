/**
 * The suite kit: the only module a conformance suite imports from the harness
 * (besides src/checks/* and fixtures/*). See docs/dev/contracts.md, "The suite kit".
 */
export { ClientDiagnostic, type DiagnosticKind, describeBody } from '../client/diagnostics.ts';
export { type Exchange, expectJson } from '../client/http.ts';
export type { RequestOptions, SignedFetchOptions, SpeakClient } from '../client/speak-client.ts';
export type { RunConfig } from '../config/types.ts';
export { findRequirement } from '../requirements/index.ts';
export { against, check, checkStep, markSetupFailure, notObservable } from './check.ts';
export { type Model, type SpeakContext, useSpeak } from './context.ts';
export {
  type CoversOptions,
  covers,
  expiryTestTimeoutMs,
  observe,
  runSelectsArea,
  selectedRequirements,
} from './covers.ts';
export { EXPIRY_MARGIN_MS, planExpiry, waitUntil } from './expiry.ts';
export { expectSchema, SchemaFinding, type SchemaProblem } from './schema.ts';
export {
  allowedWaitMs,
  isStuckWait,
  NotWaitedAgain,
  READY_BOUND_REQUIREMENT,
  ReadyBoundExceeded,
  runWaitLedger,
  type StuckWait,
  type WaitKind,
  type WaitLedger,
} from './wait-ledger.ts';
