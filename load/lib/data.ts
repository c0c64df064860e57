/**
 * Test data from load/data/takes.json, loaded once and shared read-only between VUs (SharedArray).
 * `open()` resolves the path against this module's directory, so the scripts also run from a k6
 * archive under k6-operator.
 */
import { SharedArray } from 'k6/data';
import { envString } from './config.ts';

interface TakeData {
  voice: { name: string; gender: string };
  texts: Record<string, string[]>;
}

const file = JSON.parse(open('../data/takes.json')) as TakeData;

export const voiceSpec = file.voice;

/** The named text set (env TEXTS overrides the scenario's default). */
export function textSet(defaultName: string): readonly string[] {
  const name = envString('TEXTS', defaultName);
  const texts = file.texts[name];
  if (!texts || texts.length === 0) {
    throw new Error(
      `load/data/takes.json has no text set "${name}" (have: ${Object.keys(file.texts).join(', ')})`,
    );
  }
  return new SharedArray(`texts:${name}`, () => texts);
}

/** The text for an iteration: rotates through the set so every VU speaks every text. */
export function pick(texts: readonly string[], n: number): string {
  return texts[n % texts.length]!;
}
