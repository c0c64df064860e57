// glibc's malloc settings for every process speakcheck starts (the stack's API and workers, ffmpeg):
// read by glibc at a process's start, so bin/speakcheck.js sets them in its environment for its
// children, never for itself. Measured with `speakcheck bench`, no CPU time lost:
// - Each thread that allocates gets its own arena, and the freed memory of the libuv threads' arenas
//   stays resident. Two arenas: the API's peak RSS 194 → 121 MB over a full run.
// - A freed large block (audio buffers, HTTP bodies) raises glibc's mmap threshold up to 32 MB, and
//   from then on such blocks come from the heap and stay resident after free. A fixed 128 KiB
//   threshold hands every larger block back to the kernel when freed: the run's tree (summed RSS)
//   ~594 → 550–570 MB, medians of 5 runs.
// The bench strips them again for the run it measures, which a user starts without them.

/** @type {Readonly<Record<string, string>>} */
export const CHILD_MALLOC_ENV = Object.freeze({
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
});

/** Sets the settings in `env` where the user has not set them. */
export function setChildMalloc(env) {
  for (const [name, value] of Object.entries(CHILD_MALLOC_ENV)) env[name] ??= value;
}
