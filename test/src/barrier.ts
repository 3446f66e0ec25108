// A promise a test settles by hand: a hook opens it when it sees an operation start, and an
// operation held on it waits until the racing one has been seen. Tests prove an interleaving
// with these instead of sleeping and hoping to land mid-race.
export type Barrier<T = void> = { promise: Promise<T>; open(value: T): void; readonly opened: boolean };

export function barrier<T = void>(): Barrier<T> {
  let open!: (value: T) => void;
  let opened = false;
  const promise = new Promise<T>((r) => {
    open = (value) => {
      opened = true;
      r(value);
    };
  });
  return {
    promise,
    open: (value: T) => open(value),
    get opened() {
      return opened;
    },
  };
}
