import type { Command } from 'commander';

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description('(not built yet)')
    .action(() => {
      console.error('speakcheck bench: not built yet');
      process.exitCode = 2;
    });
}
