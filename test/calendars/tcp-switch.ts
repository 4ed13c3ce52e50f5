import net from 'node:net';

export interface TcpSwitch {
  /** `127.0.0.1:<port>` in front of the target. */
  port: number;
  /** Refuses (resets) every connection and drops the open ones: the server looks down. */
  down(): void;
  up(): void;
  /**
   * Keeps every connection (and accepts new ones) but holds the bytes both ways: the server
   * looks alive and never answers. Nothing is lost: `resume()` delivers what was held, in order.
   */
  hang(): void;
  resume(): void;
  close(): Promise<void>;
}

/**
 * A TCP pass-through to a local server that a test can switch off and on, or make hang, so a
 * real server (Radicale, Redis) can look unreachable or stuck and come back under the same URL.
 */
export async function startTcpSwitch(targetPort: number): Promise<TcpSwitch> {
  let isUp = true;
  let isHung = false;
  const sockets = new Set<net.Socket>();
  // A corked socket buffers what is written to it until uncorked: held, in order, not lost.
  const corked = new Set<net.Socket>();
  const cork = (socket: net.Socket) => {
    if (corked.has(socket)) return;
    socket.cork();
    corked.add(socket);
  };
  const server = net.createServer((client) => {
    if (!isUp) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect({ port: targetPort, host: '127.0.0.1' });
    sockets.add(client);
    sockets.add(upstream);
    if (isHung) for (const socket of [client, upstream]) cork(socket);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      for (const socket of [client, upstream]) {
        sockets.delete(socket);
        corked.delete(socket);
      }
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    down() {
      isUp = false;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      corked.clear();
    },
    up() {
      isUp = true;
    },
    hang() {
      isHung = true;
      for (const socket of sockets) cork(socket);
    },
    resume() {
      isHung = false;
      for (const socket of corked) socket.uncork();
      corked.clear();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
