/**
 * The whole requirement catalogue: every area file merged, duplicate ids rejected at load time so a
 * copy-paste mistake cannot silently make two tests judge different statements under one id. Each
 * entry of an area file is the one declaration of its requirement (text, level, grounding, sdk
 * quote, ready bound); the catalogue, the sdk profile's wire facts and the ready bounds are read
 * from those entries here.
 */

import { SpeakcheckError } from '../errors.ts';
import { requirements as audio } from './catalogue/audio.ts';
import { requirements as auth } from './catalogue/auth.ts';
import { requirements as docs } from './catalogue/docs.ts';
import { requirements as errors } from './catalogue/errors.ts';
import { requirements as lists } from './catalogue/lists.ts';
import { requirements as models } from './catalogue/models.ts';
import { requirements as security } from './catalogue/security.ts';
import { requirements as sequences } from './catalogue/sequences.ts';
import { requirements as takes } from './catalogue/takes.ts';
import { requirements as version } from './catalogue/version.ts';
import { requirements as voices } from './catalogue/voices.ts';
import { requirements as webhooks } from './catalogue/webhooks.ts';
import { requirements as websocket } from './catalogue/websocket.ts';
import type { Area, ReadyBoundKind, Requirement, RequirementDeclaration, RequirementId } from './types.ts';

export type {
  Area,
  ReadyBoundKind,
  Requirement,
  RequirementDeclaration,
  RequirementId,
  RequirementLevel,
  StandardQuote,
} from './types.ts';
export { AREAS } from './types.ts';

/** One catalogue file per area: the Record makes a missing area a type error. */
const AREA_FILES: Record<Area, readonly RequirementDeclaration[]> = {
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
  sequences,
};

export class CatalogueError extends SpeakcheckError {
  readonly code = 'SPEAKCHECK_CATALOGUE';
  override name = 'CatalogueError';
}

/** Merges area lists; throws on a duplicate id or an entry filed under the wrong area. */
export function mergeCatalogue<R extends Pick<Requirement, 'id'>>(
  areaFiles: Record<string, readonly R[]>,
): R[] {
  const seen = new Map<string, string>();
  const merged: R[] = [];
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

/** Every declaration, in catalogue order. */
export const declarations: readonly RequirementDeclaration[] = Object.freeze(mergeCatalogue(AREA_FILES));

/** The requirement of a declaration: what it says and rests on, without what other layers read of it. */
function requirementOf({
  sdkQuote: _sdk,
  readyBoundOf: _bound,
  racesTimings: _races,
  ...requirement
}: RequirementDeclaration): Requirement {
  return requirement;
}

export const catalogue: readonly Requirement[] = Object.freeze(declarations.map(requirementOf));

/**
 * The wire facts the sdk profile judges as SHOULD, each with the sentence of wire-facts.md it rests
 * on (the `sdkQuote` of its declaration).
 */
export const SDK_WIRE_FACTS: Readonly<Partial<Record<RequirementId, string>>> = Object.freeze(
  Object.fromEntries(declarations.flatMap((d) => (d.sdkQuote === undefined ? [] : [[d.id, d.sdkQuote]]))),
);

/** The INFO requirements whose checks compare two timings of one run (the declarations that say `racesTimings`). */
export const RACES_TIMINGS: ReadonlySet<string> = new Set(
  declarations.flatMap((d) => (d.racesTimings ? [d.id] : [])),
);

/** The requirement each kind's ready bound proves (the declaration that says `readyBoundOf`). */
export const READY_BOUND_REQUIREMENT: Readonly<Record<ReadyBoundKind, RequirementId>> = Object.freeze(
  readyBounds(declarations),
);

function readyBounds(list: readonly RequirementDeclaration[]): Record<ReadyBoundKind, RequirementId> {
  const voice = list.find((d) => d.readyBoundOf === 'voice');
  const take = list.find((d) => d.readyBoundOf === 'take');
  if (!voice || !take) throw new CatalogueError('the catalogue declares no ready bound for voices or takes.');
  return { voice: voice.id, take: take.id };
}

const byId = new Map<string, Requirement>(catalogue.map((r) => [r.id, r]));

export function findRequirement(id: string): Requirement | undefined {
  return byId.get(id);
}

/** The ids among `ids` that the catalogue does not know. */
export function unknownRequirementIds(ids: readonly string[]): string[] {
  return ids.filter((id) => !byId.has(id));
}
