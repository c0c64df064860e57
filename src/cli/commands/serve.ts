import type { Command } from 'commander';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('(not built yet)')
    .action(() => {
      console.error('speakcheck serve: not built yet');
      process.exitCode = 2;
    });
}
