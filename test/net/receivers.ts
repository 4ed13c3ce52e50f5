import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP receiver on 127.0.0.1 that records what reaches it. */
export interface Receiver {
  url: string;
  port: number;
  /** TCP connections accepted, whether or not a request followed. */
  connections: number;
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/**
 * Starts a receiver; `handler` answers after the request body has been read in full
 * (recorded in `requests`). Closing drops every open connection, so a handler that never
 * answers cannot hold the test up.
 */
export async function startReceiver(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<Receiver> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receiver.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
    // The client may cut us off mid-body; that is the behaviour under test, not a failure.
    res.on('error', () => {});
  });
  server.on('connection', (socket) => {
    receiver.connections += 1;
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    url: `http://127.0.0.1:${port}`,
    port,
    connections: 0,
    requests: [],
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return receiver;
}

/** A port nothing listens on (bound, then released). */
export async function unusedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Writes one byte every few milliseconds until the connection goes away. */
export function trickle(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.flushHeaders();
  const timer = setInterval(() => res.write('x'), 20);
  res.on('close', () => clearInterval(timer));
}
