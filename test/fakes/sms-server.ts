import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a stand-in received: its path, headers and form fields. */
export interface SmsRequest {
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  form: Record<string, string>;
}

export interface SmsReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A local HTTP server answering form POSTs through `answer`; shared by the SMSAPI and Twilio stand-ins. */
export async function startSmsServer(answer: (request: SmsRequest) => SmsReply): Promise<{ url: string; requests: SmsRequest[]; close(): Promise<void> }> {
  const requests: SmsRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: SmsRequest = {
        path: req.url ?? '/',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        form: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))),
      };
      if (req.method === 'POST') requests.push(request);
      const reply = req.method === 'POST' ? answer(request) : { status: 405, body: { message: 'Method not allowed' } };
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
