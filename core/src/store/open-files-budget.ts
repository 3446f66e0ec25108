// How many append logs of a store may hold their file open at once. A log keeps its file
// open between appends (opening is a thread-pool round trip on every write otherwise), but
// the embedded store keeps a log per account and family, and a deployment holds far more
// accounts than are active: kept open for good, the descriptors would follow every account
// touched since the start and run the process out of them (EMFILE: writes fail, and so does
// accept()). So the logs share a budget: past it, the least recently used one closes its
// file, through its own queue (never under a write), and opens it again on its next append.
export type FileHolder = {
  /** Closes the file once the writes queued before it are done; the next write opens it again. */
  closeFile(): Promise<void>;
};

export type OpenFilesBudget = {
  /** `holder` has its file open and just used it: the least recently used beyond the cap close theirs. */
  used(holder: FileHolder): void;
  /** `holder` closed its file on its own (a rewrite, the store's close). */
  closed(holder: FileHolder): void;
  /** Resolves once the closes this budget started are done. */
  settled(): Promise<void>;
};

export function createOpenFilesBudget(max: number): OpenFilesBudget {
  // A Set iterates in insertion order: re-adding on use keeps the least recently used first.
  const open = new Set<FileHolder>();
  const closing = new Set<Promise<void>>();
  return {
    used(holder) {
      open.delete(holder);
      open.add(holder);
      while (open.size > max) {
        const oldest = open.values().next().value as FileHolder;
        open.delete(oldest);
        // Not awaited by the write that went over the cap: the oldest's close waits behind its
        // own writes, and two logs each waiting on the other's queue would never finish. Its
        // lines were synced when they were answered, so a failed close loses nothing.
        const done: Promise<void> = oldest
          .closeFile()
          .catch(() => undefined)
          .finally(() => closing.delete(done));
        closing.add(done);
      }
    },
    closed(holder) {
      open.delete(holder);
    },
    async settled() {
      while (closing.size > 0) await Promise.all(closing);
    },
  };
}
