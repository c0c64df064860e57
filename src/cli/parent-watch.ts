/**
 * `serve` goes when the process that started it goes (issue 51 item 9). `npx speakcheck serve &` in
 * a CI script is npm exec → sh -c → node: a TERM to npm exec ends npm and the shell, and the shell
 * forwards nothing, so serve and its workers were left running, adopted by init. Node has no
 * PR_SET_PDEATHSIG; the parent's death shows as a new parent pid (init's, or a subreaper's), so the
 * pid is polled: cheap (one getppid a second) and the same on Linux and macOS. Started by the
 * harness with an IPC channel, the channel's disconnect says it sooner (serve listens to both).
 */

/** The default poll: a stack outlives its parent by at most about a second. */
export const PARENT_POLL_MS = 1000;

/**
 * Calls `onGone` once when this process's parent changes (it died and the process was adopted).
 * Does nothing when the parent is already init (pid 1: a container's entry point, or adopted
 * before the watch began, nothing to follow). Returns the stop of the watch.
 */
export function onParentGone(
  onGone: () => void,
  pollMs: number = PARENT_POLL_MS,
  parentPid: () => number = () => process.ppid,
): () => void {
  const parent = parentPid();
  if (parent <= 1) return () => {};
  const timer = setInterval(() => {
    if (parentPid() === parent) return;
    clearInterval(timer);
    onGone();
  }, pollMs);
  // The stack's own handles keep the process alive; the watch must not.
  timer.unref();
  return () => clearInterval(timer);
}
