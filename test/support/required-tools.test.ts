/** The one rule for missing tools: skip saying why locally, fail naming the tool where it is required. */
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  HOW_TO_INSTALL,
  REQUIRE_ENV,
  RequiredToolMissingError,
  requiredTools,
  type Tool,
  toolReady,
} from './required-tools.ts';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('requiredTools', () => {
  test('reads the comma-separated names, blanks and spaces aside', () => {
    expect([...requiredTools(' k6, container ,,curl,sdk')]).toEqual(['k6', 'container', 'curl', 'sdk']);
    expect(requiredTools('').size).toBe(0);
  });

  test('without an argument it reads SPEAKCHECK_REQUIRE (CI sets it), and nothing is required when unset', () => {
    vi.stubEnv(REQUIRE_ENV, 'curl');
    expect([...requiredTools()]).toEqual(['curl']);
    vi.stubEnv(REQUIRE_ENV, '');
    expect(requiredTools().size).toBe(0);
  });

  test('an unknown name is refused, naming it and the known ones (a typo must not turn a requirement off)', () => {
    expect(() => requiredTools('k6,curls')).toThrow(
      `${REQUIRE_ENV} names an unknown tool (curls): the known ones are k6, container, curl, sdk`,
    );
  });
});

describe('toolReady', () => {
  test('a tool that is there: ready, required or not', () => {
    expect(toolReady('k6', undefined, { [REQUIRE_ENV]: 'k6' })).toBe(true);
    expect(toolReady('k6', undefined, {})).toBe(true);
  });

  test('missing and not required: skipped, saying why and how to install it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(toolReady('curl', 'curl is not on PATH', { [REQUIRE_ENV]: 'k6' })).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('curl is not on PATH'));
    expect(warn).toHaveBeenCalledWith(expect.stringContaining(HOW_TO_INSTALL.curl));
  });

  test.each(Object.keys(HOW_TO_INSTALL) as Tool[])(
    'missing and required: %s fails in one sentence naming it and how to install it',
    (tool) => {
      let error: unknown;
      try {
        toolReady(tool, 'it is not there.', { [REQUIRE_ENV]: `${tool}` });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(RequiredToolMissingError);
      const message = (error as Error).message;
      expect(message).toBe(
        `${tool} is required here (${REQUIRE_ENV}) but missing: it is not there; to install it, ${HOW_TO_INSTALL[tool]}.`,
      );
      expect(message.split(/\.\s/).length, 'one sentence').toBe(1);
    },
  );
});
