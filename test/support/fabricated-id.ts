import type { RequirementId } from '../../schemas/requirement-ids.ts';

/**
 * An id the catalogue does not declare, for a test that fabricates requirements to prove a runtime
 * rule (the verdict, the report, the checks' scope) on its own small catalogue: the one place a test
 * steps around the RequirementId type, on purpose and by name.
 */
export const fabricated = (id: string): RequirementId => id as RequirementId;
