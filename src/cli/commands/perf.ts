import type { Command } from 'commander';

export function registerPerf(program: Command): void {
  program
    .command('perf')
    .description('(not built yet)')
    .action(() => {
      console.error('speakcheck perf: not built yet');
      process.exitCode = 2;
    });
}
