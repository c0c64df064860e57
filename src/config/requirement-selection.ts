/**
 * `--requirement ID[,ID...]`: which catalogue requirements a run is limited to. Ids are checked
 * against the catalogue here, before anything starts, so a typo is an invalid option (exit 2) with
 * the closest known ids, not a run that silently checks nothing.
 */
import { catalogue } from '../requirements/index.ts';
import { ConfigError } from './errors.ts';

const known = new Map<string, string>(catalogue.map((r) => [r.id, r.area]));

/** Parses the comma-separated ids (flag repeated: joined by the caller); [] when none were given. */
export function parseRequirementIds(raws: readonly string[]): string[] {
  const ids = raws
    .flatMap((raw) => raw.split(','))
    .map((id) => id.trim().toUpperCase())
    .filter(Boolean);
  const unknown = [...new Set(ids.filter((id) => !known.has(id)))];
  if (unknown.length > 0) {
    const lines = unknown.map((id) => {
      const near = closestIds(id);
      return `${id}${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}`;
    });
    throw new ConfigError(
      `--requirement: unknown requirement id${unknown.length > 1 ? 's' : ''} ${lines.join('; ')}. The ids are listed in src/requirements/catalogue/<area>.ts and in the report.`,
    );
  }
  return [...new Set(ids)];
}

/** The areas of the given (known) ids, in catalogue order. */
export function areasOfRequirements(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => known.get(id)!))];
}

/**
 * Up to three known ids nearest to `id`: ids that contain it (or it them) first, then by edit
 * distance, kept only when the distance is small next to the length (else nothing is suggested).
 */
export function closestIds(id: string, limit = 3): string[] {
  const scored = [...known.keys()].map((candidate) => {
    const contains = candidate.includes(id) || id.includes(candidate);
    return { candidate, score: contains ? 0 : editDistance(id, candidate), contains };
  });
  const bound = Math.max(3, Math.floor(id.length / 3));
  return scored
    .filter((s) => s.contains || s.score <= bound)
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map((s) => s.candidate);
}

/** Levenshtein distance, two rows. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
