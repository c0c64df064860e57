/** The capacity search's options as the tests of the search, its report and its comparison use them. */
import type { SearchOptions } from '../../src/load/capacity-search.ts';

export function searchOptions(o: Partial<SearchOptions> = {}): SearchOptions {
  return {
    start: 4,
    min: 0.5,
    max: 512,
    growth: 2,
    precision: 0.1,
    granularity: 0.5,
    budgetMs: 180_000,
    maxSteps: 16,
    ...o,
  };
}
