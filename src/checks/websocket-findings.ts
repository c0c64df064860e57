/**
 * Which websocket requirement a fault of the stream is evidence against: the reassembler's findings
 * by kind, and a request that did not end cleanly by how it ended. The mapping is a Record over
 * every StreamFindingKind, so a new kind is a type error here until someone says which
 * requirement it breaks (no default branch to fall into).
 */
import type { StreamFinding, StreamFindingKind, StreamMode } from '../client/reassembler.ts';
import type { StreamedRequest } from '../client/ws-stream.ts';
import type { RequirementId } from '../requirements/index.ts';

/** The ids as written, each checked against the catalogue (unlike Extract, which drops a typo silently). */
type Ids<T extends RequirementId> = T;

/** The stream mode's own requirement: the WAV shape each part (parts) or chunk sequence (chunks) has. */
export type ModeRequirement = Ids<'WS-MODE-PARTS' | 'WS-MODE-CHUNKS'>;

/** The requirements a stream finding can be filed under. */
export type StreamRequirement =
  | Ids<
      | 'WS-FRAME-IDS-COMPLETE'
      | 'WS-END-OF-TAKE'
      | 'WS-FRAME-METADATA'
      | 'WS-REQUEST-ID-ECHO'
      | 'WS-CHUNK-END-MARKER'
    >
  | ModeRequirement;

/**
 * Where a finding kind belongs: a fixed requirement, `mode` for the mode's own WAV shape (headers and
 * formats), or `end-of-part` for the end of a part, which chunks mode marks with an empty chunk
 * (WS-CHUNK-END-MARKER) and parts mode by the part's one frame (its mode's shape).
 */
type FindingTarget =
  | Exclude<StreamRequirement, ModeRequirement | 'WS-CHUNK-END-MARKER'>
  | 'mode'
  | 'end-of-part';

const TARGET_OF_FINDING: Record<StreamFindingKind, FindingTarget> = {
  'duplicate-frame': 'WS-FRAME-IDS-COMPLETE',
  gap: 'WS-FRAME-IDS-COMPLETE',
  'missing-end-of-take': 'WS-END-OF-TAKE',
  'frame-after-end-of-take': 'WS-END-OF-TAKE',
  'missing-end-of-part': 'end-of-part',
  'chunk-after-end-of-part': 'end-of-part',
  'mode-mismatch': 'WS-FRAME-METADATA',
  'unknown-take': 'WS-FRAME-METADATA',
  'unknown-request': 'WS-REQUEST-ID-ECHO',
  'header-size-mismatch': 'mode',
  'not-riff-wave': 'mode',
  'format-mismatch': 'mode',
};

export function modeRequirement(mode: StreamMode): ModeRequirement {
  return mode === 'parts' ? 'WS-MODE-PARTS' : 'WS-MODE-CHUNKS';
}

/** Which requirement a reassembler finding of `kind` breaks in a stream of `mode`. */
export function requirementOfFinding(kind: StreamFindingKind, mode: StreamMode): StreamRequirement {
  const target = TARGET_OF_FINDING[kind];
  if (target === 'mode') return modeRequirement(mode);
  if (target === 'end-of-part') return mode === 'chunks' ? 'WS-CHUNK-END-MARKER' : modeRequirement(mode);
  return target;
}

/**
 * The findings grouped by the requirement they break. Every requirement the mode's framing test
 * judges is present, empty when nothing broke it, so each is judged (and passes) on its own.
 */
export function streamFindingsByRequirement(
  findings: readonly StreamFinding[],
  mode: StreamMode,
): Map<StreamRequirement, StreamFinding[]> {
  const judged: StreamRequirement[] = [
    'WS-FRAME-IDS-COMPLETE',
    'WS-END-OF-TAKE',
    'WS-FRAME-METADATA',
    modeRequirement(mode),
    ...(mode === 'chunks' ? (['WS-CHUNK-END-MARKER'] as const) : []),
  ];
  const groups = new Map<StreamRequirement, StreamFinding[]>(judged.map((id) => [id, []]));
  for (const f of findings) {
    const id = requirementOfFinding(f.kind, mode);
    groups.set(id, [...(groups.get(id) ?? []), f]);
  }
  return groups;
}

/** The requirement a request that did not end cleanly is evidence against, by how it ended. */
export function requirementOfEnding(
  outcome: StreamedRequest['outcome'],
): 'WS-NO-DISCONNECT-MID-REQUEST' | 'WS-END-OF-TAKE' | 'WS-REQUEST-FORMAT' {
  if (outcome === 'closed') return 'WS-NO-DISCONNECT-MID-REQUEST';
  if (outcome === 'timeout') return 'WS-END-OF-TAKE';
  return 'WS-REQUEST-FORMAT';
}
