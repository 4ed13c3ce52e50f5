import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real 1×1 PNG (its bytes, not only its signature). */
export const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

/** A local image server: each path answers what a logo host might. */
export async function startLogoServer(): Promise<{ url: string; close(): Promise<void> }> {
  const routes: Record<string, { type: string; body: Buffer; status?: number; location?: string }> = {
    '/logo.png': { type: 'image/png', body: PIXEL_PNG },
    '/page.html': { type: 'text/html', body: Buffer.from('<!doctype html><p>not an image') },
    '/logo.svg': { type: 'image/svg+xml', body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') },
    '/lying.png': { type: 'image/png', body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') },
    '/huge.png': { type: 'image/png', body: Buffer.concat([PIXEL_PNG, Buffer.alloc(600 * 1024)]) },
    '/moved.png': { type: 'text/plain', body: Buffer.alloc(0), status: 302, location: '/logo.png' },
  };
  const server = http.createServer((request, response) => {
    const route = routes[request.url ?? ''];
    if (!route) return void response.writeHead(404).end();
    response.writeHead(route.status ?? 200, { 'content-type': route.type, ...(route.location ? { location: route.location } : {}) }).end(route.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
