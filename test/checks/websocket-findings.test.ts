/**
 * The stream-finding → requirement mapping: every kind the reassembler can report is filed under a
 * requirement of the catalogue (the list below must name every kind: a type assertion says so), the
 * end of a part goes to the mode's marker, and a request's ending names its requirement.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  modeRequirement,
  requirementOfEnding,
  requirementOfFinding,
  streamFindingsByRequirement,
} from '../../src/checks/websocket-findings.ts';
import type { StreamFinding, StreamFindingKind } from '../../src/client/reassembler.ts';
import { findRequirement } from '../../src/requirements/index.ts';

const KINDS = [
  'duplicate-frame',
  'gap',
  'missing-end-of-part',
  'missing-end-of-take',
  'chunk-after-end-of-part',
  'frame-after-end-of-take',
  'header-size-mismatch',
  'not-riff-wave',
  'format-mismatch',
  'mode-mismatch',
  'unknown-request',
  'unknown-take',
] as const satisfies readonly StreamFindingKind[];

const finding = (kind: StreamFindingKind): StreamFinding => ({ kind, message: kind });

describe('requirementOfFinding', () => {
  it('the list here names every kind of stream finding', () => {
    expectTypeOf<Exclude<StreamFindingKind, (typeof KINDS)[number]>>().toEqualTypeOf<never>();
  });

  it.each(KINDS)('files %s under a requirement the catalogue knows, in both modes', (kind) => {
    for (const mode of ['parts', 'chunks'] as const) {
      const id = requirementOfFinding(kind, mode);
      expect(findRequirement(id), `${kind} (${mode}) → ${id}`).toBeDefined();
    }
  });

  it('files each kind where the requirement it breaks is', () => {
    expect(requirementOfFinding('gap', 'chunks')).toBe('WS-FRAME-IDS-COMPLETE');
    expect(requirementOfFinding('duplicate-frame', 'parts')).toBe('WS-FRAME-IDS-COMPLETE');
    expect(requirementOfFinding('missing-end-of-take', 'parts')).toBe('WS-END-OF-TAKE');
    expect(requirementOfFinding('frame-after-end-of-take', 'chunks')).toBe('WS-END-OF-TAKE');
    expect(requirementOfFinding('mode-mismatch', 'chunks')).toBe('WS-FRAME-METADATA');
    expect(requirementOfFinding('unknown-take', 'chunks')).toBe('WS-FRAME-METADATA');
    expect(requirementOfFinding('unknown-request', 'parts')).toBe('WS-REQUEST-ID-ECHO');
  });

  it("files the end of a part under chunks mode's end marker, and under parts mode's shape", () => {
    expect(requirementOfFinding('missing-end-of-part', 'chunks')).toBe('WS-CHUNK-END-MARKER');
    expect(requirementOfFinding('chunk-after-end-of-part', 'chunks')).toBe('WS-CHUNK-END-MARKER');
    expect(requirementOfFinding('missing-end-of-part', 'parts')).toBe('WS-MODE-PARTS');
  });

  it("files header and format faults under the mode's own requirement", () => {
    for (const kind of ['header-size-mismatch', 'not-riff-wave', 'format-mismatch'] as const) {
      expect(requirementOfFinding(kind, 'parts')).toBe('WS-MODE-PARTS');
      expect(requirementOfFinding(kind, 'chunks')).toBe('WS-MODE-CHUNKS');
    }
    expect(modeRequirement('parts')).toBe('WS-MODE-PARTS');
    expect(modeRequirement('chunks')).toBe('WS-MODE-CHUNKS');
  });
});

describe('streamFindingsByRequirement', () => {
  it("lists every requirement the mode's framing test judges, empty when nothing broke it", () => {
    expect([...streamFindingsByRequirement([], 'parts')]).toEqual([
      ['WS-FRAME-IDS-COMPLETE', []],
      ['WS-END-OF-TAKE', []],
      ['WS-FRAME-METADATA', []],
      ['WS-MODE-PARTS', []],
    ]);
    expect([...streamFindingsByRequirement([], 'chunks').keys()]).toEqual([
      'WS-FRAME-IDS-COMPLETE',
      'WS-END-OF-TAKE',
      'WS-FRAME-METADATA',
      'WS-MODE-CHUNKS',
      'WS-CHUNK-END-MARKER',
    ]);
  });

  it('groups the findings by the requirement each breaks, adding one outside the usual set', () => {
    const groups = streamFindingsByRequirement(
      [finding('gap'), finding('duplicate-frame'), finding('unknown-request'), finding('not-riff-wave')],
      'chunks',
    );
    expect(groups.get('WS-FRAME-IDS-COMPLETE')!.map((f) => f.kind)).toEqual(['gap', 'duplicate-frame']);
    expect(groups.get('WS-REQUEST-ID-ECHO')!.map((f) => f.kind)).toEqual(['unknown-request']);
    expect(groups.get('WS-MODE-CHUNKS')!.map((f) => f.kind)).toEqual(['not-riff-wave']);
    expect(groups.get('WS-END-OF-TAKE')).toEqual([]);
  });
});

describe('requirementOfEnding', () => {
  it('names the requirement a request that did not end cleanly broke, by how it ended', () => {
    expect(requirementOfEnding('closed')).toBe('WS-NO-DISCONNECT-MID-REQUEST');
    expect(requirementOfEnding('timeout')).toBe('WS-END-OF-TAKE');
    expect(requirementOfEnding('error-message')).toBe('WS-REQUEST-FORMAT');
    expect(requirementOfEnding('take-failed')).toBe('WS-REQUEST-FORMAT');
    expect(requirementOfEnding('ended')).toBe('WS-REQUEST-FORMAT');
  });
});
