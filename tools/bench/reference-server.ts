import fs from 'node:fs';
import http from 'node:http';
import type { Captures } from './captures.js';

/**
 * The machine's limit for serving an answer: plain node:http replaying, for each request line,
 * the status, headers and body captured from Duka. Run as a child process (argv: the captures
 * file) so it does not share an event loop with the load generator; it tells its port on stdout.
 */

interface Prepared {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

function serve(captures: Captures): http.Server {
  const answers = new Map<string, Prepared>();
  for (const [line, c] of Object.entries(captures)) {
    answers.set(line, { status: c.status, headers: c.headers, body: Buffer.from(c.bodyBase64, 'base64') });
  }
  // A capture whose line ends in * answers every request line it begins (distinct typo searches,
  // which Duka must see for the first time, so none of them can be captured beforehand).
  const byPrefix = [...answers].filter(([line]) => line.endsWith('*')).map(([line, a]) => [line.slice(0, -1), a] as const);
  const server = http.createServer((request, response) => {
    const line = `${request.method} ${request.url}`;
    const answer = answers.get(line) ?? byPrefix.find(([prefix]) => line.startsWith(prefix))?.[1];
    // A request body (sign-in, order) is read in full, as Duka must, before answering.
    request.resume();
    request.on('end', () => {
      if (!answer) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(answer.status, answer.headers.flat());
      response.end(answer.body);
    });
  });
  server.keepAliveTimeout = 72_000;
  return server;
}

const file = process.argv[2];
if (file) {
  const server = serve(JSON.parse(fs.readFileSync(file, 'utf8')) as Captures);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address && typeof address === 'object') process.stdout.write(`listening ${address.port}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
