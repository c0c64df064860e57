/** What a conformance test leaves in its vitest task meta for the reporter (JSON only). */
import type { EvidenceEntry } from '../evidence/evidence.ts';
import type { Conclusions } from '../verdict/conclusion.ts';

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
  observations?: string[];
  characters?: number;
}

declare module 'vitest' {
  interface TaskMeta extends SpeakTestMeta {}
  /** The run plan (JSON, src/harness/run-plan.ts) handed from the suites' global setup to the workers. */
  export interface ProvidedContext {
    speakRunConfig: string;
    /** The run's shared voice (JSON of ProvidedSharedVoice, src/harness/shared-voice.ts). */
    speakSharedVoice: string;
    /** The run's webhook sink (JSON of ProvidedWebhookSink, src/client/webhook-sink-control.ts). */
    speakWebhookSink: string;
  }
}
