import type { Command } from 'commander';

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('(not built yet)')
    .action(() => {
      console.error('speakcheck run: not built yet');
      process.exitCode = 2;
    });
}
