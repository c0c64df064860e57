/**
 * Preloaded (`--import`) into every vitest worker process, before vitest's own code: when the process
 * that forked it (`speakcheck run`, or vitest itself) dies without stopping it, e.g. on SIGKILL, the
 * worker exits at once. Without this a worker outlives its parent: its next message to it fails,
 * vitest's uncaught-error handler tries to report that to the parent, fails again, and the worker
 * spins at full CPU while its memory grows (seen: four orphans at 3 GB each after 17 minutes).
 * Plain JavaScript: it runs before any TypeScript loader.
 */
// Captured now: vitest later replaces process.exit in its workers with a function that only reports.
const exit = process.exit.bind(process);
if (process.send) process.once('disconnect', () => exit(1));
