/**
 * The sdk profile (`speakcheck run --profile sdk`): strict, plus the wire facts the vendor's SDK and
 * example clients rely on, judged as SHOULD. speak-v1.md leaves these open, so elsewhere they are
 * INFO ("Observed (not judged, INFO): …"); a server that wants the vendor's SDK and clients to work
 * against it unchanged gates on them here. Each such requirement's declaration (catalogue/<area>.ts)
 * carries the sentence of wire-facts.md it rests on, verbatim, as its `sdkQuote`
 * (test/requirements/sdk-profile.test.ts finds each in spec/wire-facts.md).
 */
import type { Profile } from '../config/types.ts';
import { type Requirement, type RequirementLevel, SDK_WIRE_FACTS } from '../requirements/index.ts';

export { SDK_WIRE_FACTS };

/** Whether `profile` judges the wire facts (as SHOULD). */
export function judgesWireFacts(profile: Profile | undefined): boolean {
  return profile === 'sdk';
}

/** A requirement as `profile` judges it: in the sdk profile the SDK's wire facts are SHOULD, with their quote. */
export function inProfile(requirement: Requirement, profile: Profile | undefined): Requirement {
  const quote = SDK_WIRE_FACTS[requirement.id];
  if (!judgesWireFacts(profile) || quote === undefined || requirement.level !== 'INFO') return requirement;
  return { ...requirement, level: 'SHOULD', quote };
}

/** The level `profile` judges `requirement` at. */
export function levelIn(requirement: Requirement, profile: Profile | undefined): RequirementLevel {
  return inProfile(requirement, profile).level;
}
