/**
 * The whole requirement catalogue: every area file merged, duplicate ids rejected at load time so a
 * copy-paste mistake cannot silently make two tests judge different statements under one id.
 */

import { SpeakcheckError } from '../errors.ts';
import { requirements as audio } from './catalogue/audio.ts';
import { requirements as auth } from './catalogue/auth.ts';
import { requirements as docs } from './catalogue/docs.ts';
import { requirements as errors } from './catalogue/errors.ts';
import { QUOTES, STANDARD_QUOTES } from './catalogue/grounding.ts';
import { requirements as lists } from './catalogue/lists.ts';
import { requirements as models } from './catalogue/models.ts';
import { requirements as security } from './catalogue/security.ts';
import { requirements as takes } from './catalogue/takes.ts';
import { requirements as version } from './catalogue/version.ts';
import { requirements as voices } from './catalogue/voices.ts';
import { requirements as webhooks } from './catalogue/webhooks.ts';
import { requirements as websocket } from './catalogue/websocket.ts';
import type { Area, Requirement, StandardQuote } from './types.ts';

export type { Area, Requirement, RequirementLevel, StandardQuote } from './types.ts';
export { AREAS } from './types.ts';

/** One catalogue file per area: the Record makes a missing area a type error. */
const AREA_FILES: Record<Area, readonly Requirement[]> = {
  auth,
  models,
  voices,
  takes,
  lists,
  audio,
  errors,
  docs,
  version,
  websocket,
  webhooks,
  security,
};

export class CatalogueError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_CATALOGUE';
  override name = 'CatalogueError';
}

/** Merges area lists; throws on a duplicate id or an entry filed under the wrong area. */
export function mergeCatalogue(areaFiles: Record<string, readonly Requirement[]>): Requirement[] {
  const seen = new Map<string, string>();
  const merged: Requirement[] = [];
  for (const [file, list] of Object.entries(areaFiles)) {
    for (const requirement of list) {
      const previous = seen.get(requirement.id);
      if (previous !== undefined) {
        throw new CatalogueError(
          `requirement id ${requirement.id} is declared twice (catalogue/${previous}.ts and catalogue/${file}.ts).`,
        );
      }
      if (!/^[A-Z0-9]+(-[A-Z0-9]+)+$/.test(requirement.id)) {
        throw new CatalogueError(
          `requirement id "${requirement.id}" (catalogue/${file}.ts) is not UPPER-DASH-CASE.`,
        );
      }
      seen.set(requirement.id, file);
      merged.push(requirement);
    }
  }
  return merged;
}

/**
 * Each MUST and SHOULD with the sentence of speak-v1.md and the named standards it rests on
 * (catalogue/grounding.ts). INFO takes none: it is judged on nothing.
 */
export function withQuotes(
  list: readonly Requirement[],
  quotes: Readonly<Record<string, string>>,
  standards: Readonly<Record<string, readonly StandardQuote[]>> = {},
): Requirement[] {
  return list.map((r) => {
    if (r.level === 'INFO') return r;
    const quote = quotes[r.id];
    const named = standards[r.id];
    return {
      ...r,
      ...(quote === undefined ? {} : { quote }),
      ...(named === undefined ? {} : { standards: named }),
    };
  });
}

export const catalogue: readonly Requirement[] = Object.freeze(
  withQuotes(mergeCatalogue(AREA_FILES), QUOTES, STANDARD_QUOTES),
);

const byId = new Map(catalogue.map((r) => [r.id, r]));

export function findRequirement(id: string): Requirement | undefined {
  return byId.get(id);
}

/** The ids among `ids` that the catalogue does not know. */
export function unknownRequirementIds(ids: readonly string[]): string[] {
  return ids.filter((id) => !byId.has(id));
}
