// A TCP proxy in front of the Presence server that a test can take down (every open
// connection cut, new ones refused) and bring back: a real outage, seen by the bots.
import net from 'node:net';

export async function startProxy(target: string) {
  const { hostname, port } = new URL(target);
  const pairs = new Set<[net.Socket, net.Socket]>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port: own } = server.address() as net.AddressInfo;
  const cut = () => {
    for (const [a, b] of pairs) {
      a.destroy();
      b.destroy();
    }
    pairs.clear();
  };
  return {
    url: `http://127.0.0.1:${own}`,
    /** Presence is "down": open connections are cut and new ones closed at once. */
    down() {
      down = true;
      cut();
    },
    up() {
      down = false;
    },
    close: () =>
      new Promise<void>((r) => {
        cut();
        server.close(() => r());
      }),
  };
}
