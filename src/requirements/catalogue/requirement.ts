import type { Area, Requirement, RequirementDeclaration, RequirementId, RequirementLevel } from '../types.ts';

/**
 * What an entry says besides id, section, level and text: its source when only wire-facts.md says
 * it, its grounding (the speak-v1.md quote, the named standards), the wire-facts quote the sdk
 * profile judges it by, the ready bound it is.
 */
export type EntryDetails = Partial<
  Pick<
    RequirementDeclaration,
    'source' | 'quote' | 'standards' | 'sdkQuote' | 'readyBoundOf' | 'racesTimings'
  >
>;

/**
 * The constructor every catalogue file uses: `const r = requirementsIn('audio')` binds the area, so
 * an entry reads as id, section, level, text, then its details. The entry is the one declaration of
 * its requirement: the catalogue, the grounding, the sdk profile and the ready bounds are read from
 * it. A new id is a type error until schemas/requirement-ids.ts is regenerated (npm run
 * requirements:ids).
 */
export function requirementsIn(
  area: Area,
): (
  id: RequirementId,
  section: string,
  level: RequirementLevel,
  text: string,
  details?: EntryDetails,
) => RequirementDeclaration {
  return (id, section, level, text, details = {}) => {
    const { source = 'speak-v1', quote, standards, sdkQuote, readyBoundOf, racesTimings } = details;
    const requirement: Requirement = {
      id,
      area,
      section,
      level,
      source,
      text,
      ...(quote === undefined ? {} : { quote }),
      ...(standards === undefined ? {} : { standards }),
    };
    return {
      ...requirement,
      ...(sdkQuote === undefined ? {} : { sdkQuote }),
      ...(readyBoundOf === undefined ? {} : { readyBoundOf }),
      ...(racesTimings === undefined ? {} : { racesTimings }),
    };
  };
}
