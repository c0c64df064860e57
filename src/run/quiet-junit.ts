/**
 * vitest's JUnit reporter as `speakcheck run` uses it, without its `JUNIT report written to …` line
 * (issue 51 item 12): the run's last lines name every report it wrote, junit.xml among them; vitest's
 * own line landed in the middle of the summary. Only that line is dropped; the file is the same.
 */
import type { Vitest } from 'vitest/node';
import { JUnitReporter } from 'vitest/reporters';

const WRITTEN = 'JUNIT report written to ';

export class QuietJUnitReporter extends JUnitReporter {
  /** The reporter's vitest (JUnitReporter keeps its own private). */
  private vitest: Vitest | undefined;

  override async onInit(ctx: Vitest): Promise<void> {
    this.vitest = ctx;
    await super.onInit(ctx);
  }

  override async onFinished(...args: Parameters<JUnitReporter['onFinished']>): Promise<void> {
    const logger = this.vitest?.logger;
    if (!logger) return super.onFinished(...args);
    const log = logger.log;
    logger.log = (...parts: unknown[]) => {
      if (typeof parts[0] === 'string' && parts[0].startsWith(WRITTEN)) return;
      log.apply(logger, parts as Parameters<typeof log>);
    };
    try {
      await super.onFinished(...args);
    } finally {
      logger.log = log;
    }
  }
}
