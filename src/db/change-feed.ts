import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { destroySocket, postgresWrites } from './connect.js';
import { CHANGE_TABLES } from './migrations/0031-change-notifications.js';

/**
 * Whether what the month view's reads remembered may still be served on PostgreSQL, where
 * other instances write to the same database. Migration 0031 has PostgreSQL notify channel
 * `termin_changes` whenever a transaction that changed those tables commits; this feed
 * LISTENs on a connection of its own and moves its generation on every notice, on every
 * write of this process to those tables (`postgresWrites`: its own commits show at once,
 * before their notice comes back), and whenever it loses or regains the connection
 * (notices sent meanwhile are lost).
 *
 * It goes live only once a probe (a notice sent from a second connection) came back on the
 * listening one, and stays live while each heartbeat's probe does. While it is not live
 * (connecting, reconnecting, a probe not back), nothing may be remembered: each read goes
 * to the database, as it did before the feed existed. A connection that died without a word
 * (a failover with no RST) is caught within two heartbeats (10 s by default); a change made
 * elsewhere in that time may be served stale until then.
 */
export interface ChangeFeed {
  /** Moves whenever remembered answers may have gone stale. */
  generation(): number;
  /** Changes made elsewhere are being heard right now. */
  live(): boolean;
  close(): Promise<void>;
}

/** Migration 0031's triggers notify this channel. */
const CHANGES_CHANNEL = 'termin_changes';

export interface ChangeFeedOptions {
  /** How often a probe notice is sent; not back within as long, the feed is down and reconnects. */
  heartbeatMs?: number;
  /** The wait before connecting again after a failure. */
  retryMs?: number;
  connectTimeoutMs?: number;
  /** Hears the feed go down (with why) and come back; for the log. */
  onState?: (live: boolean, error?: Error) => void;
}

export function listenForChanges(url: string, options: ChangeFeedOptions = {}): ChangeFeed {
  const heartbeatMs = options.heartbeatMs ?? 5_000;
  const retryMs = options.retryMs ?? 1_000;
  let notices = 0;
  let listening = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let wasLive = false;
  const saidUnusable = new Set<string>();
  // Named, so an operator can tell them apart in pg_stat_activity.
  const newClient = (name: string) =>
    new pg.Client({ connectionString: url, application_name: name, keepAlive: true, connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000, query_timeout: heartbeatMs });

  const drop = (error?: Error) => {
    const current = client;
    client = undefined;
    if (listening) notices += 1;
    listening = false;
    if (current) {
      current.removeAllListeners('notification');
      void endQuietly(current);
    }
    // Said when the feed goes down, and once for each reason it cannot come up at all.
    const unusable = error instanceof UnusableFeedError;
    if (wasLive || (unusable && !saidUnusable.has(error.message))) options.onState?.(false, error);
    if (unusable) saidUnusable.add(error.message);
    wasLive = false;
    if (!closed && retry === undefined) {
      retry = setTimeout(
        () => {
          retry = undefined;
          void connect();
        },
        // Missing triggers or a pooler in the way change only when someone acts: no need to knock every second.
        unusable ? Math.max(retryMs, 30_000) : retryMs,
      );
      retry.unref();
    }
  };

  const connect = async () => {
    if (closed) return;
    const next = newClient('termin change notices');
    client = next;
    next.on('error', (error) => {
      if (client === next) drop(error);
    });
    next.on('end', () => {
      if (client === next) drop(new Error('the listening connection ended'));
    });
    next.on('notification', (message) => {
      // A probe (this instance's or another's) is no change.
      if (message.payload?.startsWith(PROBE_PREFIX)) probes.get(message.payload)?.();
      else notices += 1;
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
      // A database not yet migrated by any instance sends no notices: silence would mean nothing.
      const { rows } = await next.query<{ tables: number }>(
        "select count(distinct tgrelid)::int as tables from pg_trigger where tgname = 'termin_changes' and tgrelid in (select to_regclass(name) from unnest($1::text[]) as name)",
        [CHANGE_TABLES],
      );
      if (rows[0]!.tables < CHANGE_TABLES.length) throw new UnusableFeedError('the database lacks the change triggers of migration 0031 (no instance has migrated it yet)');
      await probe();
    } catch (error) {
      if (client === next) drop(error as Error);
      else void endQuietly(next);
      return;
    }
    if (closed || client !== next) {
      void endQuietly(next);
      return;
    }
    // Whatever changed before LISTEN took effect was not heard: forget everything once more.
    notices += 1;
    listening = true;
    wasLive = true;
    options.onState?.(true);
  };

  // A notice sent from another connection must come back on the listening one within
  // heartbeatMs: that a LISTEN was answered proves nothing behind a pooler that hands the
  // session to others between statements (PgBouncer in transaction mode), and a connection can
  // go silent without closing. So the feed goes live only after a probe came back, and stays
  // live only while each heartbeat's probe does.
  const probes = new Map<string, () => void>();
  let prober: pg.Client | undefined;
  const probeSender = async (): Promise<pg.Client> => {
    if (prober) return prober;
    const created = newClient('termin change notices (probe)');
    created.on('error', () => {
      if (prober === created) prober = undefined;
      void endQuietly(created);
    });
    prober = created;
    try {
      await created.connect();
    } catch (error) {
      if (prober === created) prober = undefined;
      void endQuietly(created);
      throw error;
    }
    return created;
  };
  const probe = async (): Promise<void> => {
    const token = `${PROBE_PREFIX}${randomUUID()}`;
    let timer: NodeJS.Timeout | undefined;
    const heard = new Promise<void>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new UnusableFeedError(`a change notice sent did not come back within ${heartbeatMs} ms (behind a pooler in transaction mode? set DATABASE_CHANGE_NOTIFICATIONS=false)`),
          ),
        heartbeatMs,
      );
      timer.unref();
      probes.set(token, resolve);
    });
    // Its timeout may strike while the send itself still waits: seen here, thrown below.
    heard.catch(() => undefined);
    try {
      const sender = await probeSender();
      try {
        await sender.query('select pg_notify($1, $2)', [CHANGES_CHANNEL, token]);
      } catch (error) {
        // A sender that timed out may be stuck: the next probe opens a new one.
        if (prober === sender) prober = undefined;
        void endQuietly(sender);
        throw error;
      }
      await heard;
    } finally {
      clearTimeout(timer);
      probes.delete(token);
    }
  };

  const heartbeat = setInterval(() => {
    const current = client;
    if (!listening || !current) return;
    // Lost after it worked: a network fault, retried at the usual pace.
    probe().catch((error: Error) => {
      if (client === current) drop(new Error(error.message, { cause: error }));
    });
  }, heartbeatMs);
  heartbeat.unref();
  void connect();

  return {
    generation: () => notices + postgresWrites.count,
    live: () => listening,
    async close() {
      closed = true;
      clearInterval(heartbeat);
      if (retry) clearTimeout(retry);
      const current = client;
      client = undefined;
      listening = false;
      const sender = prober;
      prober = undefined;
      await Promise.all([current && endQuietly(current), sender && endQuietly(sender)]);
    },
  };
}

/** The feed cannot be trusted here at all (no triggers, notices not delivered): said once, retried slowly. */
class UnusableFeedError extends Error {}

const PROBE_PREFIX = 'probe:';

/**
 * Ends a connection that may be broken or hung: a polite end if the server answers within a
 * second, else the socket is destroyed (a hung one would keep the process from exiting).
 */
async function endQuietly(client: pg.Client): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().then(
    () => true,
    () => true,
  );
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), 1_000);
    timer.unref();
  });
  if (!(await Promise.race([ended, late]))) destroySocket(client);
  clearTimeout(timer);
}
