/**
 * The fairness rule of the catalogue, as a function: a MUST or SHOULD rests on a sentence of
 * speak-v1.md that requires it, or on a named external standard in that standard's own words. What
 * the contract leaves open ("…: not shown") and what only the wire facts (vendor SDK observations)
 * say can ground nothing: such a statement is INFO. Whether a quoted sentence truly *requires* the
 * statement is a reader's judgement; this refuses what can be told mechanically.
 * test/requirements/grounding.test.ts applies it to the whole catalogue, and to fabricated bad
 * requirements to prove it refuses them.
 */
import type { Requirement, StandardQuote } from './types.ts';

/** The contract's own words for a choice it leaves open: such a sentence grounds no verdict. */
const LEFT_OPEN = /not shown/i;

/** Names that are not external standards: our own sources, which have their own rules. */
const NOT_A_STANDARD = /^(speak-v1(\.md)?|wire[- ]facts(\.md)?|speakcheck|the reference)$/i;

/** A standard's quote shorter than this is a label, not its words. */
const MIN_QUOTE_WORDS = 5;

/** Markdown to plain words: `**bold**`, `code` and table pipes go, whitespace collapses. */
export function plainWords(text: string): string {
  return text.replace(/\*\*/g, '').replace(/`/g, '').replace(/\|/g, ' ').replace(/\s+/g, ' ').trim();
}

/**
 * Why `requirement` is not grounded by the contract `spec` (the text of speak-v1.md), one sentence
 * per problem; empty when it is (or when it is INFO and claims no grounding).
 */
export function groundingProblems(requirement: Requirement, spec: string): string[] {
  const { id, level, quote, standards = [] } = requirement;
  if (level === 'INFO') {
    return quote !== undefined || standards.length > 0
      ? [`${id} is INFO but carries a grounding: a leftover (INFO is judged on nothing)`]
      : [];
  }
  const problems: string[] = [];
  if (requirement.source === 'wire-facts') {
    problems.push(
      `${id} (${level}) is sourced from the wire facts: what only the vendor SDK shows is INFO, or ground it on a speak-v1.md sentence and set its source to speak-v1`,
    );
  }
  if (quote === undefined && standards.length === 0) {
    problems.push(
      `${id} (${level}) has no grounding: quote the speak-v1.md sentence that requires it, name a standard with its words, or make it INFO`,
    );
  }
  if (quote !== undefined) problems.push(...quoteProblems(id, level, quote, spec));
  for (const standard of standards) problems.push(...standardProblems(id, standard));
  return problems;
}

function quoteProblems(id: string, level: string, quote: string, spec: string): string[] {
  if (LEFT_OPEN.test(quote)) {
    return [
      `${id} (${level}) quotes a sentence that leaves the matter open ("not shown"): it cannot require anything; ground it elsewhere or make it INFO`,
    ];
  }
  if (!plainWords(spec).includes(plainWords(quote))) {
    return [`${id}: its quote is not in speak-v1.md: "${quote}"`];
  }
  return [];
}

function standardProblems(id: string, standard: StandardQuote): string[] {
  const problems: string[] = [];
  const name = standard.name.trim();
  if (!name || NOT_A_STANDARD.test(name)) {
    problems.push(`${id}: "${standard.name}" is not a named external standard`);
  }
  if (!standard.clause.trim()) problems.push(`${id}: the ${name} grounding names no clause`);
  if (!/^https:\/\//.test(standard.url)) {
    problems.push(`${id}: the ${name} grounding has no https URL to read it at`);
  }
  const words = standard.quote.trim().split(/\s+/).filter(Boolean);
  if (words.length < MIN_QUOTE_WORDS) {
    problems.push(`${id}: the ${name} ${standard.clause} grounding quotes no sentence of the standard`);
  }
  if (LEFT_OPEN.test(standard.quote)) {
    problems.push(`${id}: the ${name} ${standard.clause} quote leaves the matter open ("not shown")`);
  }
  return problems;
}
