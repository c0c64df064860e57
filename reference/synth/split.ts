/**
 * Text → parts (sentences). The result is what a take reports as `info.normalized_text`, and each
 * entry is synthesized as one part that ends in silence.
 *
 * Sentence boundaries come from ICU (Intl.Segmenter), which knows Unicode terminators (。！？…),
 * closing quotes and brackets, and decimal numbers. ICU's plain sentence rules break after every
 * "word + full stop", so three repairs follow: abbreviations and initials glue to what follows, a
 * segment that starts in lower case continues the previous one, and punctuation-only fragments join
 * their neighbour. Over-long sentences are cut at a clause boundary so that one part stays a
 * reasonable unit of streaming. Whitespace (any Unicode space, tabs, line breaks) collapses to one
 * ASCII space; parts are never empty.
 */
import { latitude } from '../latitude/index.ts';

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** A part longer than this is cut at a clause boundary (or a space) before it. */
export const MAX_PART_CHARS = 300;

// Lower-cased, without the final dot. Language-agnostic on purpose: the text may be any language and a
// false merge only makes one part longer, while a false split cuts a sentence.
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'st',
  'sr',
  'jr',
  'mt',
  'vs',
  'etc',
  'e.g',
  'i.e',
  'cf',
  'no',
  'nr',
  'vol',
  'fig',
  'approx',
  'inc',
  'ltd',
  'co',
  'corp',
  'dept',
  'gen',
  'gov',
  'lt',
  'col',
  'sgt',
  'capt',
  'rev',
  'hon',
  'a.m',
  'p.m',
  'u.s',
  'u.k',
  'z.b',
  'bzw',
  'usw',
  'ca',
  'hr',
  'fr',
  'frau',
  'herr',
  'mme',
  'mlle',
  'sra',
  'sr',
  'srta',
  'ud',
  'uds',
  'sig',
  'dott',
  'ing',
  'jan',
  'feb',
  'mar',
  'apr',
  'jun',
  'jul',
  'aug',
  'sep',
  'sept',
  'oct',
  'nov',
  'dec',
]);

const WHITESPACE = /[\s\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]+/gu;
// Applied after whitespace has become spaces: the remaining control characters, soft hyphens and
// zero-width spaces are invisible. (ZWJ/ZWNJ stay: they matter in Persian, Indic scripts and emoji.)
const INVISIBLE = /[\p{Cc}\u00ad\u200b\u2060]/gu;
const SPEAKABLE = /[\p{L}\p{N}]/u;
const STARTS_LOWER = /^[\s"'«»“”‘’([{¿¡-]*\p{Ll}/u;

function normaliseWhitespace(text: string): string {
  return text.replace(WHITESPACE, ' ').replace(INVISIBLE, '').replace(/ {2,}/g, ' ').trim();
}

function endsWithAbbreviationOrInitial(segment: string): boolean {
  const match = /(?:^|[\s("'«“‘])([\p{L}.]+)\.\s*$/u.exec(segment);
  if (!match) return false;
  const word = match[1]!;
  // A single letter with a dot is an initial ("J. R. R. Tolkien"); dotted forms like "e.g" too.
  if (/^\p{L}$/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase());
}

function sentences(text: string): string[] {
  const merged: string[] = [];
  for (const { segment } of segmenter.segment(text)) {
    const previous = merged.at(-1);
    const glue =
      previous !== undefined &&
      (endsWithAbbreviationOrInitial(previous) ||
        STARTS_LOWER.test(segment) ||
        !SPEAKABLE.test(previous) ||
        !SPEAKABLE.test(segment));
    if (glue) merged[merged.length - 1] = previous + segment;
    else merged.push(segment);
  }
  return merged;
}

/** Cuts an over-long sentence at the last clause mark (or failing that, space) before the limit. */
function capLength(sentence: string): string[] {
  const pieces: string[] = [];
  let rest = sentence;
  while (rest.length > MAX_PART_CHARS) {
    const window = rest.slice(0, MAX_PART_CHARS);
    let cut = Math.max(
      ...[', ', '; ', ': ', ' – ', ' — ', '、', '，', '；'].map((m) => window.lastIndexOf(m)),
    );
    if (cut > MAX_PART_CHARS / 3) cut += 1;
    else cut = window.lastIndexOf(' ');
    if (cut <= 0) cut = MAX_PART_CHARS; // one unbroken word: cut it anyway
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut);
  }
  pieces.push(rest);
  return pieces;
}

/** Sentences = parts = `info.normalized_text`: whitespace-normalised, never empty, in order. */
export function splitIntoParts(text: string): string[] {
  const parts: string[] = [];
  for (const sentence of sentences(text)) {
    for (const piece of capLength(normaliseWhitespace(sentence))) {
      const part = normaliseWhitespace(piece);
      if (part !== '') parts.push(part);
    }
  }
  return latitude.has('ws-merge-short-sentences') ? mergeShortParts(parts) : parts;
}

/** Latitude ws-merge-short-sentences: a part shorter than this is merged with the next one. */
export const SHORT_PART_CHARS = 40;

/** "A part is usually one sentence": short sentences share a part with the one that follows. */
function mergeShortParts(parts: readonly string[]): string[] {
  const merged: string[] = [];
  let pending = '';
  for (const part of parts) {
    pending = pending === '' ? part : `${pending} ${part}`;
    if (pending.length >= SHORT_PART_CHARS) {
      merged.push(pending);
      pending = '';
    }
  }
  if (pending !== '') merged.push(pending);
  return merged;
}
