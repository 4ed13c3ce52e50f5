import net from 'node:net';

export interface TcpSwitch {
  /** `127.0.0.1:<port>` in front of the target. */
  port: number;
  /** Refuses (resets) every connection and drops the open ones: the server looks down. */
  down(): void;
  up(): void;
  close(): Promise<void>;
}

/**
 * A TCP pass-through to a local server that a test can switch off and on, so a real
 * server (Radicale) can look unreachable and come back under the same URL.
 */
export async function startTcpSwitch(targetPort: number): Promise<TcpSwitch> {
  let isUp = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!isUp) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect({ port: targetPort, host: '127.0.0.1' });
    sockets.add(client);
    sockets.add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
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
    },
    up() {
      isUp = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
