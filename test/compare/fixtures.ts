/**
 * Small hand-made conformance reports for the compare tests: a requirement is [id, level, status]
 * (and its observations); everything else a conformance.json holds is filled in plainly.
 */
import type { RunInput } from '../../src/compare/diff.ts';
import { observation } from '../../src/evidence/observation.ts';
import { REPORT_VERSION, type ReportedRequirement } from '../../src/report/model.ts';
import { upgradeRequirement } from '../../src/report/report-version.ts';
import type { RequirementLevel } from '../../src/requirements/types.ts';
import type { VerdictStatus } from '../../src/verdict/verdict.ts';
import { fabricated } from '../support/fabricated-id.ts';

export type Req = [id: string, level: RequirementLevel, status: VerdictStatus, observations?: string[]];

/** A requirement as a version-1 report wrote it (its label), read as the current model. */
export function requirement([id, level, status, observations = []]: Req): ReportedRequirement {
  return upgradeRequirement({
    id: fabricated(id),
    area: id.split('-')[0]!.toLowerCase() === 'auth' ? 'auth' : 'lists',
    section: 'Section 1',
    level,
    source: 'speak-v1',
    text: `${id} in words.`,
    ...(level === 'INFO' ? {} : { quote: `The contract's sentence for ${id}.` }),
    tests: [`suites/x.spec.ts > ${id}`],
    covered: true,
    observations: observations.map((text) => observation('lists.said', '{text}', { values: { text } })),
    status,
    message: observations.length ? observations.join(' · ') : `${id}: ${status}`,
  });
}

export function run(
  label: string,
  reqs: Req[],
  o: Partial<RunInput['report']['run']> = {},
): RunInput & { report: { version: number; summary: unknown; tests: []; uncovered: []; problems: [] } } {
  return {
    label,
    file: `/runs/${label}/conformance.json`,
    report: {
      version: REPORT_VERSION,
      run: {
        exitCode: 0,
        verdict: 'CONFORMS',
        verdictReasons: [],
        profile: 'strict',
        only: [],
        requirements: [],
        serverVersion: '{"version":1,"minor":0}',
        baseUrl: 'http://127.0.0.1:4000',
        target: 'remote',
        startedAt: '2026-11-26T10:00:00.000Z',
        harness: '0.1.0 (abc1234)',
        ...o,
      },
      requirements: reqs.map(requirement),
      summary: {},
      tests: [],
      uncovered: [],
      problems: [],
    },
  };
}
