import type { Area, Requirement, RequirementLevel } from '../types.ts';

/**
 * The constructor every catalogue file uses: `const r = requirementsIn('audio')` binds the area, so
 * an entry reads as id, section, level, text (and `'wire-facts'` where only wire-facts.md says it).
 */
export function requirementsIn(
  area: Area,
): (
  id: string,
  section: string,
  level: RequirementLevel,
  text: string,
  source?: Requirement['source'],
) => Requirement {
  return (id, section, level, text, source = 'speak-v1') => ({ id, area, section, level, source, text });
}
