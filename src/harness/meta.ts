/** What a conformance test leaves in its vitest task meta for the reporter (JSON only). */
import type { EvidenceEntry } from '../evidence/evidence.ts';
import type { CheckTallies, HarnessErrorNote } from '../verdict/verdict.ts';

export interface SpeakTestMeta {
  /** Requirement ids the test declares through covers(). */
  requirements?: string[];
  /** Ids the catalogue does not know (the test fails, the run fails). */
  unknownRequirements?: string[];
  /** True when every id is INFO: assertion failures became observations. */
  infoOnly?: boolean;
  /** Per requirement id: the check() calls that held and the messages of those that failed. */
  checks?: CheckTallies;
  /** The error thrown outside every check: the ids it left unconcluded are blocked by it. */
  blockedBy?: string;
  /** Bugs of the harness itself this test ran into (src/harness/harness-error.ts). */
  harnessErrors?: HarnessErrorNote[];
  evidence?: EvidenceEntry[];
  droppedEvidence?: number;
  observations?: string[];
  characters?: number;
  /** The server's back-pressure (429/503) outlasted a request's bound: the test concluded nothing. */
  throttled?: string;
}

declare module 'vitest' {
  interface TaskMeta extends SpeakTestMeta {}
  /** The run config (JSON) handed from the suites' global setup to the workers. */
  export interface ProvidedContext {
    speakRunConfig: string;
    /** The run's shared voice (JSON of ProvidedSharedVoice, src/harness/shared-voice.ts). */
    speakSharedVoice: string;
    /** The run's webhook sink (JSON of ProvidedWebhookSink, src/client/webhook-sink-control.ts). */
    speakWebhookSink: string;
  }
}
