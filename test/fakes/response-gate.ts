import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ResponseGate {
  /** `http://127.0.0.1:<port>/`: the target's paths, served through the gate. */
  baseUrl: string;
  /** Every request that reached the target through the gate, in order (`METHOD /path`). */
  requests: string[];
  /** How many answers are waiting for `release()`. */
  readonly held: number;
  /** From now on each answer is held back until `release()` (the request itself reaches the target at once). */
  hold(): void;
  /**
   * From now on each request is held back, unsent, until `release()`: a client frozen after it
   * decided to call and before the target heard anything (an instance paused before asking a provider).
   */
  holdRequests(): void;
  /** Answers and requests arriving from now on pass again; those already held stay held. */
  pass(): void;
  /** Sends every held request and answer, in order. */
  release(): void;
  close(): Promise<void>;
}

/**
 * An HTTP pass-through to a local server (Radicale) that answers only when told: while it
 * holds, each request is forwarded at once but its answer waits. A test so freezes a client
 * inside its remote read, with the data as it was when asked, for as long as it needs.
 */
export async function startResponseGate(target: string): Promise<ResponseGate> {
  const requests: string[] = [];
  let holding = false;
  let holdingRequests = false;
  let waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      const held = holding;
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'connection')) as Record<string, string>;
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const forward = () =>
        fetch(new URL(req.url ?? '/', target), { method: req.method ?? 'GET', headers, body })
          .then(async (answer) => {
            const payload = Buffer.from(await answer.arrayBuffer());
            const send = () => {
              const passed: Record<string, string> = {};
              answer.headers.forEach((value, name) => {
                if (name !== 'content-length' && name !== 'content-encoding' && name !== 'transfer-encoding' && name !== 'connection') passed[name] = value;
              });
              res.writeHead(answer.status, { ...passed, 'content-length': String(payload.length) }).end(payload);
            };
            if (held) waiting.push(send);
            else send();
          })
          .catch(() => res.writeHead(502).end());
      if (holdingRequests) waiting.push(() => void forward());
      else void forward();
    });
  });
  const release = () => {
    const sends = waiting;
    waiting = [];
    for (const send of sends) send();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/`,
    requests,
    get held() {
      return waiting.length;
    },
    hold() {
      holding = true;
    },
    holdRequests() {
      holdingRequests = true;
    },
    pass() {
      holding = false;
      holdingRequests = false;
    },
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
