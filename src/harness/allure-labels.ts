/**
 * Makes the Allure report speak in requirements: each test is labelled with the area (feature), the
 * requirement ids (stories) and their levels (tags), and carries its redacted evidence and
 * observations as attachments. Allure problems never fail a conformance test.
 */
import * as allure from 'allure-js-commons';
import type { TestRecord } from '../evidence/evidence.ts';
import { findRequirement } from '../requirements/index.ts';

export async function labelForAllure(
  ids: readonly string[],
  record: TestRecord,
  /** One line per requirement id: its own result in this test (passed, failed: …, blocked by: …). */
  results: readonly string[] = [],
): Promise<void> {
  try {
    await allure.epic('Speak v1 conformance');
    const areas = new Set<string>();
    const levels = new Set<string>();
    for (const id of ids) {
      const requirement = findRequirement(id);
      if (!requirement) continue;
      areas.add(requirement.area);
      levels.add(requirement.level);
      await allure.story(id);
      await allure.label('requirement', id);
    }
    for (const area of areas) await allure.feature(area);
    for (const level of levels) await allure.tag(level);
    if (results.length > 0) await allure.attachment('requirements', results.join('\n'), 'text/plain');
    if (record.observations.length > 0) {
      await allure.attachment(
        'observations',
        record.observations.map((o) => o.text).join('\n'),
        'text/plain',
      );
    }
    if (record.evidence.length > 0) {
      await allure.attachment(
        'evidence (redacted)',
        JSON.stringify(record.evidence, null, 2),
        'application/json',
      );
    }
  } catch {
    // Reporting aid only.
  }
}
