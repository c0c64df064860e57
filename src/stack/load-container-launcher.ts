/**
 * The container launcher (./container.ts) for `--target container`, loaded only then: testcontainers
 * is an optional peer dependency (an installed speakcheck testing a server elsewhere does not carry
 * it). Without it the command fails with one sentence saying what to install.
 */
import { StackStartError } from './embedded.ts';

export type ContainerLauncher = typeof import('./container.ts');

export async function loadContainerLauncher(): Promise<ContainerLauncher> {
  try {
    return await import('./container.ts');
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && /testcontainers/.test(String((error as Error).message)))
      throw new StackStartError(
        '--target container needs the testcontainers package, which is not installed: npm install testcontainers@^11',
      );
    throw error;
  }
}
