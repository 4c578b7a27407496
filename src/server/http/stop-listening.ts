import net from 'node:net';

/**
 * Stops taking new connections while leaving the open ones alone, then waits (at most `maxWaitMs`)
 * for them to finish. http.Server.close() would also close the connections it thinks idle, and a
 * connection nginx has just opened, whose request Node has not read yet, counts as idle: closing
 * it fails that request with a 502 that nginx may not retry (an order POST). During the drain every
 * answer carries `Connection: close`, so each open connection ends after its one request.
 */
export async function stopListening(server: net.Server, maxWaitMs: number): Promise<void> {
  if (!server.listening) return;
  // net.Server's own close: the listening socket only. Its callback would wait for every
  // connection, a kept-alive browser's too, so the wait is bounded below instead.
  net.Server.prototype.close.call(server);
  const deadline = Date.now() + maxWaitMs;
  while (Date.now() < deadline) {
    const open = await new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
