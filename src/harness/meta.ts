/** What a conformance test leaves in its vitest task meta for the reporter (JSON only). */
import type { EvidenceEntry } from '../client/evidence.ts';

export interface SpeakTestMeta {
  /** Requirement ids the test declares through covers(). */
  requirements?: string[];
  /** Ids the catalogue does not know (the test fails, the run fails). */
  unknownRequirements?: string[];
  /** True when every id is INFO: assertion failures became observations. */
  infoOnly?: boolean;
  evidence?: EvidenceEntry[];
  droppedEvidence?: number;
  observations?: string[];
  characters?: number;
}

declare module 'vitest' {
  interface TaskMeta extends SpeakTestMeta {}
  /** The run config (JSON) handed from the suites' global setup to the workers. */
  export interface ProvidedContext {
    speakRunConfig: string;
    /** The run's shared voice (JSON of ProvidedSharedVoice, src/harness/shared-voice.ts). */
    speakSharedVoice: string;
  }
}
