import net from 'node:net';

/**
 * Ports below Linux's ephemeral range (32768–60999). A port the OS hands out for `listen(0)` is
 * from that range, and between the moment a test learns it and the moment its child process
 * binds it, any outgoing connection (to PostgreSQL, Redis, another test's server) may take it as
 * its local port: nginx failed with "Address already in use" that way in CI.
 */
const LOW = 20_000;
const HIGH = 32_767;

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A TCP port free on 127.0.0.1 right now, for a server a test starts as a child process. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${LOW} and ${HIGH}`);
}
