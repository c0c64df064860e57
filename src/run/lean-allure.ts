/**
 * allure-vitest's reporter as `speakcheck run` uses it, writing the same files without an fsync each
 * (issue 52). Allure's FileSystemWriter writes every result, container and attachment to a temporary
 * file, fsyncs it and renames it: ~600 files a main job, 0.23 CPU-s of fsync in the run's main
 * thread alone (`speakcheck bench --profile`), and on a slow CI disk each fsync waits for the device.
 * The results are read after the run has ended (`allure generate`, a CI's Allure step), never while
 * it writes, and a run that dies mid-way is not concluded anyway: durability per file buys nothing.
 *
 * allure-vitest takes no writer of its own choosing, so the runtime's writer is swapped after its
 * onInit; when a later allure-vitest no longer has it where it is looked for, its own writer stays
 * (the same files, only slower).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestResult, TestResultContainer } from 'allure-js-commons';
import type { Category, EnvironmentInfo } from 'allure-js-commons/sdk';
import { stringifyEnvInfo, type Writer } from 'allure-js-commons/sdk/reporter';
import AllureVitestReporter from 'allure-vitest/reporter';
import type { Vitest } from 'vitest/node';

/** Allure's file layout (allure-js-commons' FileSystemWriter), written plainly. */
export class PlainAllureWriter implements Writer {
  private made = false;

  constructor(private readonly resultsDir: string) {}

  writeResult(result: TestResult): void {
    this.json(`${result.uuid}-result.json`, result);
  }

  writeGroup(result: TestResultContainer): void {
    this.json(`${result.uuid}-container.json`, result);
  }

  writeAttachment(distFileName: string, content: Buffer): void {
    writeFileSync(this.path(distFileName), content);
  }

  writeAttachmentFromPath(distFileName: string, from: string): void {
    copyFileSync(from, this.path(distFileName));
  }

  writeEnvironmentInfo(info: EnvironmentInfo): void {
    writeFileSync(this.path('environment.properties'), stringifyEnvInfo(info), 'utf8');
  }

  writeCategoriesDefinitions(categories: Category[]): void {
    this.json('categories.json', categories);
  }

  writeGlobals(distFileName: string, info: Parameters<Writer['writeGlobals']>[1]): void {
    this.json(distFileName, info);
  }

  private json(name: string, value: unknown): void {
    writeFileSync(this.path(name), JSON.stringify(value), 'utf8');
  }

  private path(name: string): string {
    if (!this.made) {
      mkdirSync(this.resultsDir, { recursive: true });
      this.made = true;
    }
    return join(this.resultsDir, name);
  }
}

export class LeanAllureReporter extends AllureVitestReporter {
  constructor(private readonly resultsDir: string) {
    super({ resultsDir });
  }

  override onInit(vitest: Vitest): void {
    super.onInit(vitest);
    const runtime = (this as unknown as { allureReporterRuntime?: { writer?: Writer } })
      .allureReporterRuntime;
    if (runtime && typeof runtime.writer?.writeResult === 'function') {
      runtime.writer = new PlainAllureWriter(this.resultsDir);
    }
  }
}
