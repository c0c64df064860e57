import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestResult } from 'allure-js-commons';
import { afterEach, expect, test } from 'vitest';
import type { Vitest } from 'vitest/node';
import { LeanAllureReporter, PlainAllureWriter } from '../../src/run/lean-allure.ts';

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'lean-allure-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("the plain writer lays files out as Allure's own writer does", () => {
  const root = scratch();
  const dir = join(root, 'allure-results'); // made on the first write
  const writer = new PlainAllureWriter(dir);
  writer.writeResult({ uuid: 'u1', name: 'a test' } as TestResult);
  writer.writeGroup({ uuid: 'g1', children: ['u1'], befores: [], afters: [] });
  writer.writeAttachment('u1-attachment.txt', Buffer.from('evidence'));
  writeFileSync(join(root, 'from.txt'), 'copied');
  writer.writeAttachmentFromPath('u1-copy.txt', join(root, 'from.txt'));
  writer.writeEnvironmentInfo({ target: 'embedded' });
  writer.writeCategoriesDefinitions([{ name: 'failed MUST' }]);
  expect(readdirSync(dir).sort()).toEqual([
    'categories.json',
    'environment.properties',
    'g1-container.json',
    'u1-attachment.txt',
    'u1-copy.txt',
    'u1-result.json',
  ]);
  expect(JSON.parse(readFileSync(join(dir, 'u1-result.json'), 'utf8'))).toEqual({
    uuid: 'u1',
    name: 'a test',
  });
  expect(readFileSync(join(dir, 'u1-copy.txt'), 'utf8')).toBe('copied');
  expect(readFileSync(join(dir, 'environment.properties'), 'utf8')).toBe('target=embedded');
});

test("the run's Allure reporter writes through the plain writer", () => {
  const dir = join(scratch(), 'allure-results');
  const reporter = new LeanAllureReporter(dir);
  // What onInit reads of vitest: its projects' setup files (allure-vitest adds its own).
  reporter.onInit({ projects: [], config: {} } as unknown as Vitest);
  const runtime = (reporter as unknown as { allureReporterRuntime: { writer: unknown } })
    .allureReporterRuntime;
  expect(runtime.writer).toBeInstanceOf(PlainAllureWriter);
});
