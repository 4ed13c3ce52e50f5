import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import path from 'node:path';
import { pino } from 'pino';
import { ConfigError, loadConfig, loadSecrets, type Config, type Env } from '../config.js';
import { createContext, type AppContext } from '../context.js';
import { createDb } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { listAccounts } from '../db/repositories/accounts.js';
import { DomainError, NotFoundError } from '../domain/errors.js';
import { INTEGRATION_PROVIDERS, type IntegrationProvider, isIntegrationProvider } from '../domain/integrations.js';
import { updateAccountAsOperator } from '../scheduling/account/account.js';
import { handOverOwnershipAsOperator } from '../scheduling/account/owner.js';
import { createApiKeyForUser } from '../scheduling/account/api-keys.js';
import { createAccount } from '../scheduling/account/create-account.js';
import { redirectUriOf, setIntegrationAsOperator } from '../scheduling/integrations/apps.js';
import { resealSecrets } from '../scheduling/operator/reseal-secrets.js';
import { deactivateAccount, deleteAccount, listAccountUsers, listUserKeys, outboxStatus, retryFailedJobs, revokeKeyAsOperator } from '../scheduling/operator/operator.js';
import { SERVICE_VERSION } from '../version.js';
import { AUDIT_ACTIONS, OPERATOR_ACTOR, isAuditAction } from '../domain/audit.js';
import { listAuditEventsAsOperator } from '../scheduling/audit/audit-events.js';
import { exportToJson } from '../http/representations.js';
import { eraseParticipant, exportParticipant } from '../scheduling/participants/participants.js';
import { pruneTables } from '../scheduling/maintenance/prune.js';
import { applyRetention } from '../scheduling/participants/retention.js';
import { BackupError, backupPostgres, backupSqlite, restorePostgresCommand, restoreSqlite } from './backup.js';

/**
 * The operator's command line: `npm run --silent cli -- <command> …`. A thin shell over
 * the same use cases the API runs. With --json, stdout carries exactly one JSON object;
 * progress and errors go to stderr.
 */
const USAGE = `termin operator CLI

Usage: npm run --silent cli -- <command> [options]

Commands:
  migrate                         Apply pending database migrations
  account create                  Create an account, its owner, first team and an owner API key
      --name <text>               Account name (required)
      --owner-email <email>       Owner's e-mail (required)
      --owner-first-name <text>   Owner's first name (required)
      --owner-last-name <text>    Owner's last name (required)
      --max-users <n>             Plan limit of active users (required)
      --timezone <IANA zone>      Account's default time zone (default UTC)
      --places <list>             Enabled places, comma-separated (default offline,phone-call)
      --team-name <text>          Name of the first team (default: the account name)
  account list                    List accounts
  account set-plan                Change an account's plan limit
      --account <uuid> --max-users <n>
  account owner                   Hand an account over to another owner (one of its team admins)
      --account <uuid> --user <uuid>
  account deactivate --account <uuid>
                                  Switch an account off now: every user deactivated, every key
                                  revoked; meetings and history are kept
  account delete --account <uuid> --yes
                                  Delete an account and everything in it, for good (the demo too)
  user list --account <uuid>      The account's users, their teams and live keys
  integrations set                Set an account's OAuth app at a provider (hosts can then connect)
      --account <uuid> --provider zoom|google|microsoft|webex --client-id <id>
      --client-secret-file <file> The secret, read from a file, or - for stdin (never an
                                  argument: others on the machine see those in ps). Left out,
                                  the stored secret is kept
      --tenant <tenant>           Microsoft only (default common)
  integrations remove --account <uuid> --provider <provider>
                                  Remove the app (hosts' connections stop being made)
  key create --user <uuid>        Create an API key for a user (e.g. to replace a lost one)
      --name <text>               Key name (default "Operator-issued key")
  key list --user <uuid>          A user's keys, revoked ones too (never the secrets)
  key revoke --key <uuid>         Revoke a key at once
  secrets reseal                  Seal every stored secret again with TERMIN_SECRET_KEY (after a
                                  rotation, with the old key in TERMIN_SECRET_KEY_PREVIOUS); says
                                  how many rows changed and names what no given key opens
  audit list --account <uuid>     The account's audit log, newest first (at most 200 entries)
      --since <date-time>         Only entries at or after this UTC instant (2027-03-01T00:00:00Z)
      --action <action>           Only entries of this action (e.g. key.revoked, meeting.cancelled)
  outbox status                   Queued jobs (e-mails, webhooks, …) by kind and status, the
                                  oldest pending one's age, the latest error
  outbox retry --failed           Queue the failed jobs again with a full set of attempts
      --kind <kind>               Only jobs of this kind
  participants export             Everything the account keeps about a participant, as JSON
      --account <uuid> --email <email>
  participants erase              Erase a participant's personal data in the account (their
      --account <uuid> --email <email>   meetings still to come are cancelled; the host is told)
  retention run                   Apply every account's retention now: erase the personal data
      [--as-of <date-time>]       of meetings that ended longer ago than it keeps (as if at
                                  that moment: to check a setting), then delete the rows past
                                  each table's RETENTION_* age
  backup --to <file>              SQLite: a consistent copy of the live database (safe while
                                  the server runs). PostgreSQL: runs pg_dump if it is on PATH,
                                  otherwise prints the pg_dump command
      --force                     Replace <file> if it exists
  restore --from <file>           SQLite: check the backup, keep the current database beside
                                  it, restore, migrate. Refused while a server has the database
                                  open (stop it first). PostgreSQL: prints the pg_restore command
      --force                     Restore even while the database is in use

Options:
  --json      Print one JSON object on stdout (for scripts)
  --version   Print the termin version
  --help, -h  Show this help

The database comes from DATABASE_URL (unset: termin.db in DATA_DIR, default ./data in the
project folder).`;

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;

const OPTIONS: ParseArgsConfig['options'] = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  'owner-email': { type: 'string' },
  'owner-first-name': { type: 'string' },
  'owner-last-name': { type: 'string' },
  'max-users': { type: 'string' },
  timezone: { type: 'string' },
  places: { type: 'string' },
  'team-name': { type: 'string' },
  account: { type: 'string' },
  user: { type: 'string' },
  key: { type: 'string' },
  kind: { type: 'string' },
  since: { type: 'string' },
  action: { type: 'string' },
  to: { type: 'string' },
  from: { type: 'string' },
  failed: { type: 'boolean' },
  force: { type: 'boolean' },
  yes: { type: 'boolean' },
  version: { type: 'boolean', short: 'v' },
  provider: { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret-file': { type: 'string' },
  tenant: { type: 'string' },
  email: { type: 'string' },
  'as-of': { type: 'string' },
};

export interface CliIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

function parseArgsOrExplain(argv: string[], io: CliIo) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err.write(`${(error as Error).message}\n\nRun with --help for usage.\n`);
    return null;
  }
}

export async function runCli(argv: string[], io: CliIo = { out: process.stdout, err: process.stderr }, env: Env = process.env): Promise<number> {
  const parsed = parseArgsOrExplain(argv, io);
  if (parsed === null) return 2;
  const options = parsed.values as Options;
  const command = parsed.positionals.join(' ');
  if (options.version) {
    io.out.write(options.json ? `${JSON.stringify({ version: SERVICE_VERSION })}\n` : `termin ${SERVICE_VERSION}\n`);
    return 0;
  }
  if (options.help || command === '' || command === 'help') {
    io.out.write(`${USAGE}\n`);
    return command === '' && !options.help ? 2 : 0;
  }

  let ctx: AppContext | undefined;
  try {
    const config = loadConfig(env);
    // Backups touch the files (or pg_dump) directly, before anything migrates the database.
    if (command === 'backup' || command === 'restore') {
      const result = await runBackupCommand(command, options, config);
      io.out.write(options.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
      return 0;
    }
    // The same context the server builds (same secret key, same limits), always migrated
    // first; warnings go to stderr so that stdout stays one answer.
    ctx = await createContext(config, { secrets: loadSecrets(env), migrate: true, log: pino({ level: 'warn' }, pino.destination(2)) });
    const applied = ctx.migrationsApplied;
    if (applied.length > 0 && command !== 'migrate') io.err.write(`Applied migrations: ${applied.join(', ')}\n`);
    const result = await runCommand(command, options, ctx, applied);
    io.out.write(options.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
    return 0;
  } catch (error) {
    io.err.write(`${describeError(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await ctx?.close();
  }
}

interface CommandResult {
  json: unknown;
  text: string;
}

async function runCommand(command: string, options: Options, ctx: AppContext, applied: string[]): Promise<CommandResult> {
  switch (command) {
    case 'migrate':
      return {
        json: { applied },
        text: applied.length > 0 ? `Applied migrations: ${applied.join(', ')}` : 'The database is up to date.',
      };
    case 'account create': {
      const created = await createAccount(ctx, {
        name: required(options, 'name'),
        ownerEmail: required(options, 'owner-email'),
        ownerFirstName: required(options, 'owner-first-name'),
        ownerLastName: required(options, 'owner-last-name'),
        maxUsers: integer(options, 'max-users'),
        timezone: optional(options, 'timezone'),
        places: optional(options, 'places')
          ?.split(',')
          .filter((place) => place.trim() !== ''),
        teamName: optional(options, 'team-name'),
      });
      return {
        json: {
          account: { uuid: created.account.uuid, name: created.account.name, maxUsers: created.account.maxUsers },
          owner: { uuid: created.owner.uuid, username: created.owner.username, email: created.owner.email },
          team: { uuid: created.team.uuid, name: created.team.name },
          apiKey: created.apiKey,
        },
        text: [
          `Created account "${created.account.name}" (${created.account.uuid}), plan: ${created.account.maxUsers} users`,
          `Owner:  ${created.owner.username} <${created.owner.email}> (${created.owner.uuid})`,
          `Team:   ${created.team.name} (${created.team.uuid})`,
          `API key (shown only now): ${created.apiKey}`,
        ].join('\n'),
      };
    }
    case 'secrets reseal': {
      const report = await resealSecrets(ctx);
      const previous = ctx.secretKey.previous.length;
      return {
        json: { changedRows: report.changedRows, unreadable: report.unreadable },
        text: [
          `Sealed ${report.changedRows} row(s) again with the current secret key.`,
          ...(report.unreadable.length === 0
            ? [
                previous > 0
                  ? 'Every stored secret opens with the current key: TERMIN_SECRET_KEY_PREVIOUS can be removed once every instance runs with the current key.'
                  : 'Every stored secret opens with the current key.',
              ]
            : [
                `${report.unreadable.length} stored secret(s) could not be opened with TERMIN_SECRET_KEY or TERMIN_SECRET_KEY_PREVIOUS (add the key they were stored with and run this again, or have them entered again):`,
                ...report.unreadable.map((what) => `  - ${what}`),
              ]),
        ].join('\n'),
      };
    }
    case 'account list': {
      const accounts = await listAccounts(ctx.db);
      return {
        json: { accounts: accounts.map((a) => ({ uuid: a.uuid, name: a.name, maxUsers: a.maxUsers, timezone: a.timezone })) },
        text: accounts.length === 0 ? 'No accounts yet.' : accounts.map((a) => `${a.uuid}  ${a.name}  (max ${a.maxUsers} users, ${a.timezone})`).join('\n'),
      };
    }
    case 'account set-plan': {
      const account = await updateAccountAsOperator(ctx, required(options, 'account'), { maxUsers: integer(options, 'max-users') });
      return { json: { account: { uuid: account.uuid, name: account.name, maxUsers: account.maxUsers } }, text: `${account.name} now allows ${account.maxUsers} users.` };
    }
    case 'account owner': {
      const accountUuid = uuidFlag(options, 'account');
      const userUuid = uuidFlag(options, 'user');
      const account = await withFlag('user', userUuid, () => withFlag('account', accountUuid, () => handOverOwnershipAsOperator(ctx, accountUuid, userUuid)));
      return { json: { account: { uuid: account.uuid, name: account.name, owner: account.ownerUuid } }, text: `${account.name} is now owned by user ${account.ownerUuid}.` };
    }
    case 'integrations set':
    case 'integrations remove': {
      const accountUuid = uuidFlag(options, 'account');
      const provider = providerFlag(options);
      const label = ctx.integrations.oauth[provider].label;
      if (command === 'integrations remove') {
        await withFlag('account', accountUuid, () => setIntegrationAsOperator(ctx, accountUuid, provider, null));
        return { json: { account: accountUuid, provider, configured: false }, text: `Removed the ${label} app of account ${accountUuid}.` };
      }
      const settings: Record<string, string> = { clientId: required(options, 'client-id') };
      const secretFile = optional(options, 'client-secret-file');
      if (secretFile !== undefined) settings.clientSecret = await readSecret(secretFile);
      const tenant = optional(options, 'tenant');
      if (tenant !== undefined) {
        if (provider !== 'microsoft') throw new UsageError('--tenant is a Microsoft setting only.');
        settings.tenant = tenant;
      }
      await withFlag('account', accountUuid, () => setIntegrationAsOperator(ctx, accountUuid, provider, settings));
      const redirectUri = redirectUriOf(ctx.publicUrl, provider);
      return {
        json: { account: accountUuid, provider, configured: true, redirectUri },
        text: `Set the ${label} app of account ${accountUuid}${secretFile === undefined ? ' (secret kept)' : ''}. Its redirect URI must be exactly: ${redirectUri}`,
      };
    }
    case 'key create': {
      const created = await createApiKeyForUser(ctx, required(options, 'user'), optional(options, 'name'));
      return {
        json: { user: { uuid: created.userUuid, username: created.username }, apiKey: created.apiKey },
        text: `API key for ${created.username} (shown only now): ${created.apiKey}`,
      };
    }
    case 'account deactivate': {
      const accountUuid = uuidFlag(options, 'account');
      const done = await withFlag('account', accountUuid, () => deactivateAccount(ctx, accountUuid));
      return {
        json: done,
        text: `Deactivated "${done.account.name}": ${done.usersDeactivated} user(s) deactivated, ${done.keysRevoked} key(s) revoked. Meetings and history are kept; \`account delete\` removes them.`,
      };
    }
    case 'account delete': {
      const accountUuid = uuidFlag(options, 'account');
      if (options.yes !== true) throw new UsageError(`account delete removes the account and everything in it for good; add --yes to confirm (--account ${accountUuid}).`);
      const deleted = await withFlag('account', accountUuid, () => deleteAccount(ctx, accountUuid));
      const remaining = (await listAccounts(ctx.db)).length;
      return {
        json: { deleted, remainingAccounts: remaining },
        text: [
          `Deleted "${deleted.account.name}" (${deleted.account.uuid}): ${deleted.users} user(s), ${deleted.teams} team(s), ${deleted.meetings} meeting(s).`,
          ...(remaining === 0 ? ['No account is left: on SQLite the next server start creates a new demo account unless TERMIN_DEMO=false.'] : []),
        ].join('\n'),
      };
    }
    case 'user list': {
      const accountUuid = uuidFlag(options, 'account');
      const { account, users } = await withFlag('account', accountUuid, () => listAccountUsers(ctx, accountUuid));
      const json = {
        account,
        users: users.map((user) => ({ ...user, createdAt: iso(user.createdAt), deactivatedAt: user.deactivatedAt === null ? null : iso(user.deactivatedAt) })),
      };
      const lines = users.map(
        (user) =>
          `${user.uuid}  ${user.username}  ${user.firstName} ${user.lastName} <${user.email}>` +
          `${user.deactivatedAt !== null ? '  DEACTIVATED' : ''}  keys: ${user.liveKeys}  teams: ${user.teams.map((team) => `${team.name}${team.admin ? ' (admin)' : ''}`).join(', ') || 'none'}`,
      );
      return { json, text: [`Users of "${account.name}" (${account.uuid}):`, ...(lines.length > 0 ? lines : ['  none'])].join('\n') };
    }
    case 'key list': {
      const userUuid = uuidFlag(options, 'user');
      const { user, keys } = await withFlag('user', userUuid, () => listUserKeys(ctx, userUuid));
      const json = {
        user: { uuid: user.uuid, username: user.username, accountUuid: user.accountUuid },
        keys: keys.map((key) => ({
          uuid: key.uuid,
          name: key.name,
          createdAt: iso(key.createdAt),
          lastUsedAt: optionalIso(key.lastUsedAt),
          revokedAt: optionalIso(key.revokedAt),
        })),
      };
      const lines = keys.map(
        (key) =>
          `${key.uuid}  ${key.name}  created ${iso(key.createdAt)}  last used ${optionalIso(key.lastUsedAt) ?? 'never'}${key.revokedAt !== null ? `  REVOKED ${iso(key.revokedAt)}` : ''}`,
      );
      return { json, text: [`Keys of ${user.username} (${user.uuid}):`, ...(lines.length > 0 ? lines : ['  none'])].join('\n') };
    }
    case 'key revoke': {
      const keyUuid = uuidFlag(options, 'key');
      const { key, alreadyRevoked } = await withFlag('key', keyUuid, () => revokeKeyAsOperator(ctx, keyUuid));
      return {
        json: { key: { uuid: key.uuid, name: key.name, userUuid: key.userUuid, revokedAt: optionalIso(key.revokedAt) }, alreadyRevoked },
        text: alreadyRevoked
          ? `Key ${key.uuid} ("${key.name}") was already revoked at ${optionalIso(key.revokedAt)}.`
          : `Revoked key ${key.uuid} ("${key.name}"): it stops working at once.`,
      };
    }
    case 'audit list': {
      const accountUuid = uuidFlag(options, 'account');
      const since = optional(options, 'since');
      if (since !== undefined && (!since.endsWith('Z') || Number.isNaN(Date.parse(since))))
        throw new UsageError(`--since must be a UTC date-time like 2027-03-01T00:00:00Z, got "${since}"`);
      const action = optional(options, 'action');
      if (action !== undefined && !isAuditAction(action)) throw new UsageError(`--action must be one of ${AUDIT_ACTIONS.join(', ')}; got "${action}"`);
      const page = await withFlag('account', accountUuid, () => listAuditEventsAsOperator(ctx, accountUuid, { since, action, limit: 200 }));
      const events = page.items.map((event) => ({ uuid: event.uuid, at: iso(event.at), action: event.action, actor: event.actor, target: event.target, details: event.details }));
      const lines = events.map(
        (event) =>
          `${event.at}  ${event.action.padEnd(20)} ${event.actor.type}${event.actor.userUuid ? ` ${event.actor.userUuid}` : ''} via ${event.actor.via}  ` +
          `${event.target.type} ${event.target.uuid}  ${JSON.stringify(event.details)}`,
      );
      return {
        json: { auditEvents: events, more: page.nextCursor !== null },
        text: [...(lines.length > 0 ? lines : ['No audit entries.']), ...(page.nextCursor !== null ? ['(the newest 200 shown: narrow with --since or --action)'] : [])].join('\n'),
      };
    }
    case 'outbox status': {
      const status = await outboxStatus(ctx);
      const json = {
        pending: status.pending,
        failed: status.failed,
        oldestPendingAgeSeconds: status.oldestPendingAgeSeconds,
        groups: status.groups.map((group) => ({ ...group, oldestCreatedAt: iso(group.oldestCreatedAt) })),
      };
      const lines = status.groups.map(
        (group) =>
          `  ${group.kind.padEnd(16)} ${group.status.padEnd(8)} ${String(group.count).padStart(6)}` +
          `${group.retrying > 0 ? `  (${group.retrying} retrying)` : ''}  oldest ${iso(group.oldestCreatedAt)}${group.lastError ? `  last error: ${group.lastError.split('\n')[0]}` : ''}`,
      );
      return {
        json,
        text: [
          `Pending: ${status.pending}${status.oldestPendingAgeSeconds !== null ? ` (oldest waiting ${formatAge(status.oldestPendingAgeSeconds)})` : ''}; failed: ${status.failed}` +
            (status.failed > 0 ? ' (retry with: outbox retry --failed)' : ''),
          ...(lines.length > 0 ? lines : ['  the outbox is empty']),
        ].join('\n'),
      };
    }
    case 'outbox retry': {
      if (options.failed !== true) throw new UsageError('outbox retry needs --failed (only failed jobs are retried; pending ones retry on their own).');
      const kind = optional(options, 'kind');
      const count = await retryFailedJobs(ctx, kind);
      return {
        json: { requeued: count, kind: kind ?? null },
        text: `Queued ${count} failed job(s)${kind ? ` of kind ${kind}` : ''} again; a running server sends them within seconds.`,
      };
    }
    case 'participants export': {
      const accountUuid = uuidFlag(options, 'account');
      const data = await withFlag('account', accountUuid, () => exportParticipant(ctx, { operator: true, accountUuid }, required(options, 'email')));
      // The export is JSON whichever way it is asked for: the participant gets it as it is.
      const json = exportToJson(data);
      return { json, text: JSON.stringify(json, null, 2) };
    }
    case 'participants erase': {
      const accountUuid = uuidFlag(options, 'account');
      const done = await withFlag('account', accountUuid, () => eraseParticipant(ctx, { operator: true, accountUuid }, required(options, 'email')));
      return {
        json: { erased: done.erased.length, cancelled: done.cancelled.length },
        text:
          done.erased.length === 0
            ? 'Nothing to erase: no meeting of the account has that participant (or they were erased already).'
            : `Erased the participant of ${done.erased.length} meeting(s); ${done.cancelled.length} still to come were cancelled first (the hosts are told).`,
      };
    }
    case 'retention run': {
      const asOfFlag = optional(options, 'as-of');
      const asOf = asOfFlag === undefined ? undefined : Date.parse(asOfFlag);
      if (asOf !== undefined && (Number.isNaN(asOf) || !/^\d{4}-\d{2}-\d{2}T/.test(asOfFlag!)))
        throw new UsageError(`--as-of must be a date-time such as 2027-03-29T07:00:00Z, got "${asOfFlag}"`);
      const done = await applyRetention(ctx, asOf === undefined ? { actor: OPERATOR_ACTOR } : { asOf, actor: OPERATOR_ACTOR });
      const erased = done.accounts.reduce((sum, account) => sum + account.erased, 0);
      // Then every table's own rule (RETENTION_*), as of the same moment.
      const { pruned } = await pruneTables(ctx, ctx.config.retention, { asOf: done.asOf });
      return {
        json: { asOf: iso(done.asOf), erased, accounts: done.accounts, pruned },
        text: [
          done.accounts.length === 0
            ? `As of ${iso(done.asOf)}: nothing to erase.`
            : [
                `As of ${iso(done.asOf)}: erased the personal data of ${erased} meeting(s).`,
                ...done.accounts.map((a) => `  ${a.accountUuid}  ${a.erased} (kept ${a.days} days)`),
              ].join('\n'),
          pruned.length === 0 ? 'No rows past their retention.' : `Deleted rows past their retention: ${pruned.map((p) => `${p.rule} ${p.deleted}`).join(', ')}.`,
        ].join('\n'),
      };
    }
    default:
      throw new UsageError(`Unknown command "${command}". Run with --help for usage.`);
  }
}

async function runBackupCommand(command: 'backup' | 'restore', options: Options, config: Config): Promise<CommandResult> {
  const force = options.force === true;
  const database = config.database;
  if (command === 'backup') {
    const to = required(options, 'to');
    if (database.dialect === 'sqlite') {
      const summary = await backupSqlite(database.filename, to, force);
      return {
        json: { dialect: 'sqlite', ...summary },
        text: `Backed up ${database.filename} to ${summary.file} (${summary.bytes} bytes, ${summary.accounts} account(s), ${summary.meetings} meeting(s)); checked: integrity ok.`,
      };
    }
    const plan = backupPostgres(database, to, force);
    return {
      json: { dialect: 'postgres', ran: plan.ran, command: plan.command.join(' '), file: plan.file, bytes: plan.bytes },
      text: plan.ran
        ? `Backed up with pg_dump to ${plan.file} (${plan.bytes} bytes). Restore with: ${restorePostgresCommand(plan.file).join(' ')}`
        : `pg_dump is not on PATH. Run on a machine that has it (PostgreSQL's client tools):\n  ${plan.command.join(' ')}`,
    };
  }
  const from = required(options, 'from');
  if (database.dialect === 'postgres') {
    const restore = restorePostgresCommand(from);
    return {
      json: { dialect: 'postgres', ran: false, command: restore.join(' ') },
      text: `A PostgreSQL restore replaces the database's contents; stop every instance, then run:\n  ${restore.join(' ')}\nand start the instances again (migrate first if the backup is older: npm run cli -- migrate).`,
    };
  }
  const summary = await restoreSqlite(database.filename, from, force);
  // A backup made by an older release is brought up to this one's schema at once.
  const handle = createDb(database);
  try {
    const migrated = await migrateToLatest(handle.db);
    return {
      json: { dialect: 'sqlite', ...summary, migrated: migrated.applied },
      text: [
        `Restored ${summary.file} from ${path.resolve(from)} (${summary.accounts} account(s), ${summary.meetings} meeting(s)).`,
        ...(summary.previous ? [`The database as it was is kept at ${summary.previous}.`] : []),
        ...(migrated.applied.length > 0 ? [`Applied migrations: ${migrated.applied.join(', ')}`] : []),
      ].join('\n'),
    };
  } finally {
    await handle.destroy();
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidFlag(options: Options, name: string): string {
  const value = required(options, name).trim();
  if (!UUID.test(value)) throw new UsageError(`--${name} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

/** A record the flag named does not exist: say so in the flag's terms. */
async function withFlag<T>(flag: string, value: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // Only a miss of this flag's own kind is this flag's fault (`The user does not exist` is --user's).
    if (error instanceof NotFoundError && error.message === new NotFoundError(flag === 'key' ? 'API key' : flag).message)
      throw new FlagError(`--${flag} ${value}: no such ${flag === 'key' ? 'API key' : flag}. ${FLAG_HINTS[flag] ?? ''}`.trim());
    throw error;
  }
}

const FLAG_HINTS: Record<string, string> = {
  account: '`account list` shows the accounts.',
  user: "`user list --account <uuid>` shows an account's users.",
  key: "`key list --user <uuid>` shows a user's keys.",
};

class FlagError extends Error {}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function optionalIso(ms: number | null): string | null {
  return ms === null ? null : iso(ms);
}

function formatAge(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

function providerFlag(options: Options): IntegrationProvider {
  const value = required(options, 'provider').trim().toLowerCase();
  if (!isIntegrationProvider(value)) throw new UsageError(`--provider must be one of ${INTEGRATION_PROVIDERS.join(', ')}, got "${value}"`);
  return value;
}

/** A secret from a file, or from stdin with `-`: never from the command line, which `ps` shows to everyone on the machine. */
async function readSecret(file: string): Promise<string> {
  let text: string;
  try {
    text = file === '-' ? await readStdin() : await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`--client-secret-file ${file}: ${(error as Error).message}`);
  }
  const secret = text.trim();
  if (secret === '') throw new UsageError(`--client-secret-file ${file}: the file is empty.`);
  return secret;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required. Run with --help for usage.`);
  return value;
}

function optional(options: Options, name: string): string | undefined {
  const value = options[name];
  return typeof value === 'string' ? value : undefined;
}

function integer(options: Options, name: string): number {
  const raw = required(options, name);
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number, got "${raw}"`);
  return value;
}

// Field paths of the use cases' validation errors, spelled as the flags the operator typed.
const FLAG_NAMES: Record<string, string> = {
  name: '--name',
  ownerEmail: '--owner-email',
  ownerFirstName: '--owner-first-name',
  ownerLastName: '--owner-last-name',
  maxUsers: '--max-users',
  timezone: '--timezone',
  places: '--places',
  clientId: '--client-id',
  clientSecret: '--client-secret-file',
  tenant: '--tenant',
  email: '--email',
};

function describeError(error: unknown): string {
  if (error instanceof UsageError || error instanceof ConfigError || error instanceof FlagError || error instanceof BackupError) return error.message;
  if (error instanceof DomainError) {
    if (error.errors && error.errors.length > 0) {
      return error.errors
        .map((fieldError) => {
          const segments = fieldError.path.split('/');
          // An app's setting (`/integrations/zoom/clientId`) is named by its own flag.
          const field = (segments[1] === 'integrations' ? segments.at(-1) : segments[1]) ?? '';
          return `${FLAG_NAMES[field] ?? field}: ${fieldError.message}`.replace(/^: /, '');
        })
        .join('\n');
    }
    return error.message;
  }
  return `Error: ${error instanceof Error ? error.message : String(error)}`;
}

// Only run when executed directly (tests import runCli).
if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.ts') || process.argv[1]?.endsWith('/cli/main.js')) {
  runCli(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
