import type { Command } from 'commander';

export function registerLoad(program: Command): void {
  program
    .command('load')
    .description('(not built yet)')
    .action(() => {
      console.error('speakcheck load: not built yet');
      process.exitCode = 2;
    });
}
