/**
 * The suite kit: the only module a conformance suite imports from the harness
 * (besides src/checks/* and fixtures/*); biome.json's override for suites/** refuses any other src/
 * module there. See docs/dev/contracts.md, "The suite kit".
 */

// What suites and suites/support use of the client, the verdict words and the run's setup: re-exported
// here so the kit stays the one door (biome.json forbids suites/ any other src/ module but src/checks/*).
export { runThrottle } from '../client/back-pressure.ts';
export { ClientDiagnostic, type DiagnosticKind, describeBody } from '../client/diagnostics.ts';
export { type Exchange, expectJson } from '../client/http.ts';
export {
  accessTokenLifetime,
  freshEnough,
  type Lifetime,
  signedUrlLifetime,
  websocketUrlLifetime,
} from '../client/lifetime.ts';
export { OwnWaits, withOwnWaits } from '../client/own-waits.ts';
export type { StreamMode } from '../client/reassembler.ts';
export type { RequestOptions, SignedFetchOptions, SpeakClient } from '../client/speak-client.ts';
export { rateLimitObservation } from '../client/throttle-words.ts';
export { type SinkBehaviour, statusOf, type WebhookCall } from '../client/webhook-sink.ts';
export {
  type ProvidedWebhookSink,
  RemoteWebhookSink,
  type SettleEntry,
} from '../client/webhook-sink-control.ts';
export {
  DEFAULT_STREAM_TIMEOUTS,
  fetchWebsocketUrl,
  SpeakStreamConnection,
  type StreamedRequest,
  type StreamTimeouts,
  WsClientError,
} from '../client/ws-stream.ts';
export type { RunConfig } from '../config/types.ts';
export { adoptScenarioRecord, newTestRecord, runWithRecord } from '../evidence/evidence.ts';
export { loggedOutSince, recordedLogout } from '../facts/logouts.ts';
export { findRequirement, type RequirementId } from '../requirements/index.ts';
export { levelIn } from '../verdict/sdk-profile.ts';
export {
  against,
  cannotObserve,
  check,
  checkStep,
  coveredIds,
  markSetupFailure,
  notApplicable,
  notConcluded,
  notObserved,
  type RequirementIds,
} from './check.ts';
export { deleteMade, type MadeItem } from './cleanup.ts';
export type { Model, SpeakContext } from './context.ts';
export {
  type CoversOptions,
  covers,
  expiryTestTimeoutMs,
  observe,
  type Precondition,
  runSelectsArea,
  selectedRequirements,
  type Unmet,
} from './covers.ts';
export { classify, isRunFact } from './disposition.ts';
export {
  askPastExpiry,
  doublingWaitMs,
  EXPIRY_MARGIN_MS,
  expiryMarginMs,
  type PastExpiry,
  type PastExpiryTries,
  planExpiry,
  triesWithin,
  waitUntil,
} from './expiry.ts';
export { runPacing, TOO_FAST_BASE, tooFastRemedyFor } from './pacing.ts';
export { loadRunConfig } from './run-config.ts';
export { currentRun, type RunContext, runContext } from './run-context.ts';
export type { RunPlan } from './run-plan.ts';
export { type ObservedSequence, recordSequence, runSequences } from './run-sequences.ts';
export { expectSchema, SchemaFinding, type SchemaProblem } from './schema.ts';
export type { ProvidedSharedVoice } from './shared-voice.ts';
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
