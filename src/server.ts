import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import { buildApp } from './app.js';
import { startBackgroundJobs } from './background.js';
import { ConfigError, loadConfig, loadSecrets } from './config.js';
import { createContext } from './context.js';
import { flushLogsBeforeExit } from './logging.js';
import { seedDemoIfEmpty } from './scheduling/operator/seed-demo.js';
import { SERVICE_VERSION } from './version.js';

/** Entry point of `npm start`: config → context → app → listen, and a graceful close. */
async function main(): Promise<void> {
  // The banner below goes to stdout too: a reader that went away (EPIPE) must not crash the
  // process through an unhandled 'error' event. Logs have their own guard (src/logging.ts).
  process.stdout.on('error', () => undefined);
  // Start-up phases in ms since the process began, for the log: where a slow start goes.
  const phases: Record<string, number> = { modules: Math.round(performance.now()) };
  const mark = (phase: string) => (phases[phase] = Math.round(performance.now()) - Object.values(phases).reduce((sum, ms) => sum + ms, 0));
  const config = await withChosenPort(loadConfig());
  const ctx = await createContext(config, { secrets: loadSecrets() });
  mark('database');
  const demo = config.seedDemo ? await seedDemoIfEmpty(ctx, Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC') : null;
  mark('demo');
  const app = await buildApp(ctx);
  mark('app');
  const jobs = startBackgroundJobs(ctx);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.log.info({ signal }, 'shutting down: finishing requests in flight');
    const timer = setTimeout(() => {
      ctx.log.error('shutdown took over 10 s; exiting');
      flushLogsBeforeExit();
      process.exit(1);
    }, 10_000);
    timer.unref();
    try {
      await closeGracefully(app);
      await jobs.stop();
      await ctx.close();
      flushLogsBeforeExit();
      process.exit(0);
    } catch (error) {
      ctx.log.error({ err: error }, 'error during shutdown');
      flushLogsBeforeExit();
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // Past this many open sockets new connections are refused at once, so a flood of slow
  // clients cannot take every file descriptor (the timeouts in app.ts free the ones it holds).
  app.server.maxConnections = config.http.maxConnections;
  await app.listen({ port: config.port, host: config.host });
  mark('listen');
  ctx.log.info({ startupMs: Math.round(performance.now()), phasesMs: phases, migrationsApplied: ctx.migrationsApplied.length }, 'termin is ready');
  // Serving already; the routes' schemas compile in the background, between requests.
  const warming = performance.now();
  void app.warmUp().then((compiled) => ctx.log.debug({ compiled, ms: Math.round(performance.now() - warming) }, 'route schemas compiled'));
  const where = config.database.dialect === 'sqlite' ? `SQLite ${config.database.filename}` : 'PostgreSQL';
  const { port } = app.server.address() as AddressInfo;
  const lines = [
    '',
    `termin ${SERVICE_VERSION} is listening on ${listeningOn(config.host, port)} (database: ${where})`,
    ...(config.publicUrl !== localUrl(config.host, port) ? [`  Public URL: ${config.publicUrl}`] : []),
    `  Data:      ${config.dataDir} (${config.database.dialect === 'sqlite' ? 'the database, ' : ''}mail outbox, secret key; back it up: npm run cli -- backup --help)`,
    `  Web app:   ${config.publicUrl}/app (hosts sign in with a link sent by e-mail)`,
    `  API docs:  ${config.publicUrl}/docs`,
    `  OpenAPI:   ${config.publicUrl}/api/v1/openapi.json`,
    `  E-mail:    ${jobs.transport.describe()}`,
    `  Secrets:   ${ctx.secretKeySource.source === 'env' ? 'sealed with TERMIN_SECRET_KEY' : `sealed with the key in ${ctx.secretKeySource.file} (back it up with the database)`}${ctx.secretKey.previous.length > 0 ? `; ${ctx.secretKey.previous.length} previous key(s) still open older data (npm run cli -- secrets reseal moves it to the current key)` : ''}`,
  ];
  if (demo) {
    lines.push(
      '',
      "A demo account was created on this empty database. Its owner's API key (shown only now):",
      `  ${demo.apiKey}`,
      'Sign in to the web app as its owner (hours, topics, connections, meetings):',
      `  ${config.publicUrl}/app   e-mail: ${demo.owner.email}`,
      config.mail.smtpUrl === null
        ? `  The sign-in e-mail is not sent (no SMTP_URL): it is written as an .eml file to ${config.mail.outboxDir}; open the link in it.`
        : `  The sign-in e-mail goes out through ${jobs.transport.describe()}.`,
      'Its booking page, where anyone can book the public demo topic:',
      `  ${config.publicUrl}/book/${encodeURIComponent(demo.owner.username)}`,
      'Try the API:',
      `  curl -s -H 'X-Service-Api-Key: ${demo.apiKey}' ${config.publicUrl}/api/v1/teams`,
      'and see the free slots of the demo topic this week:',
      `  curl -s -X POST -H 'Content-Type: application/json' ${config.publicUrl}/api/v1/calculate-schedule \\`,
      `    -d '{"username":"${demo.owner.username}","meetingTopic":"${demo.topic.uuid}","timezone":"${demo.account.timezone}","offset":0}'`,
    );
  } else {
    lines.push('', 'Create an account and key with: npm run cli -- account create --help');
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}

/**
 * PORT=0 asks the system for a free port. Without a PUBLIC_URL the links the service prints
 * and sends are built from the port, so one is chosen before the configuration is frozen
 * (not `:0`, which reaches nothing).
 */
async function withChosenPort(config: ReturnType<typeof loadConfig>): Promise<ReturnType<typeof loadConfig>> {
  if (config.port !== 0 || (process.env.PUBLIC_URL ?? '').trim() !== '') return config;
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, config.host, () => {
      const chosen = (probe.address() as AddressInfo).port;
      probe.close(() => resolve(chosen));
    });
  });
  return loadConfig({ ...process.env, PORT: String(port) });
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function localUrl(host: string, port: number): string {
  const shown = isWildcard(host) ? '127.0.0.1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** Where people can reach the listener: on every interface, each address a browser could use. */
function listeningOn(host: string, port: number): string {
  if (!isWildcard(host)) return localUrl(host, port);
  const family = host === '0.0.0.0' ? ['IPv4'] : ['IPv4', 'IPv6'];
  const addresses = Object.values(os.networkInterfaces())
    .flat()
    .filter((info): info is os.NetworkInterfaceInfo => info !== undefined && !info.internal && family.includes(info.family) && !info.address.startsWith('fe80:'))
    .map((info) => `http://${info.family === 'IPv6' ? `[${info.address}]` : info.address}:${port}`);
  return `all interfaces (${host} port ${port}): ${[localUrl(host, port), ...addresses].join(', ')}`;
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`termin failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});

/** How long keep-alive connections idle at shutdown may still bring one request (answered 503, Connection: close). */
const IDLE_CONNECTION_GRACE_MS = 1_000;

/**
 * Stops accepting connections at once and lets the requests in flight finish. Connections
 * that are idle right then are not dropped under a client that may be sending on them at
 * that very moment (it would see a reset): for a second they may still bring a request,
 * which is refused as a problem with Retry-After and Connection: close (see app.ts); then
 * they are closed.
 */
async function closeGracefully(app: Awaited<ReturnType<typeof buildApp>>): Promise<void> {
  const server = app.server;
  const closeIdle = server.closeIdleConnections.bind(server);
  // Node's server.close() (and Fastify's forceCloseConnections) close idle connections at once.
  server.closeIdleConnections = () => undefined;
  const grace = setTimeout(closeIdle, IDLE_CONNECTION_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(grace);
    closeIdle();
  }
}
