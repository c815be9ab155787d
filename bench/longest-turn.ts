// How long the event loop is held by work that goes a piece a turn (the history's bucket
// write and roll-up after a usage cycle): the longest gap between turns while it runs.

/** The longest gap between turns of the event loop while `work` runs, in milliseconds. */
export async function longestTurn(work: Promise<void>): Promise<number> {
  let done = false;
  void work.then(() => { done = true; });
  let longest = 0;
  let last = performance.now();
  while (!done) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }
  return longest;
}
