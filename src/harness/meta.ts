/**
 * What a conformance test leaves in its vitest task meta for the reporter (JSON only), and what the
 * run provides to the suites' threads (vitest's ProvidedContext, so `inject` is typed).
 */
import type { ProvidedWebhookSink } from '../client/webhook-sink-control.ts';
import type { EvidenceEntry } from '../evidence/evidence.ts';
import type { Observation } from '../evidence/observation.ts';
import type { Conclusions } from '../verdict/conclusion.ts';
import type { RunPlan } from './run-plan.ts';
import type { ProvidedSharedVoice } from './shared-voice.ts';

export interface SpeakTestMeta {
  /** Requirement ids the test declares through covers(). */
  requirements?: string[];
  /** Ids the catalogue does not know (the test fails, the run fails). */
  unknownRequirements?: string[];
  /** True when every id is INFO: assertion failures became observations. */
  infoOnly?: boolean;
  /** Per requirement id: what the test concluded about it, as data (src/verdict/conclusion.ts). */
  conclusions?: Conclusions;
  evidence?: EvidenceEntry[];
  droppedEvidence?: number;
  observations?: Observation[];
  characters?: number;
}

/**
 * What the run's bootstrap hands the suites' threads through vitest's provide/inject (typed data,
 * structured-cloned; src/harness/run-context.ts makes the run's context of it).
 */
export interface ProvidedRun {
  /** The run plan (src/harness/run-plan.ts), provided before the suites' global setup runs. */
  speakRunPlan: RunPlan;
  /** The run's shared voice (src/harness/shared-voice.ts), provided by the global setup. */
  speakSharedVoice: ProvidedSharedVoice;
  /** The run's webhook sink (src/harness/run-sink.ts), provided by the global setup. */
  speakWebhookSink: ProvidedWebhookSink;
}

declare module 'vitest' {
  interface TaskMeta extends SpeakTestMeta {}
  export interface ProvidedContext extends ProvidedRun {}
}
