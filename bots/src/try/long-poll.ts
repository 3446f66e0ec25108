// The wait of a long-polled getUpdates on a loopback Bot API: with nothing to hand, the call
// holds until an update arrives (the API calls every waiter in `waiting`), its timeout passes,
// or the client hangs up — as Telegram's getUpdates does.
import type http from 'node:http';

export function longPoll(waiting: Set<() => void>, timeoutS: number, res: http.ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      waiting.delete(wake);
      resolve();
    };
    const timer = setTimeout(wake, timeoutS * 1000);
    waiting.add(wake);
    res.on('close', wake);
  });
}
