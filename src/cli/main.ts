import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Env } from '../config.js';
import { createDb, type DbHandle } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { listAccounts } from '../db/repositories/accounts.js';
import { DomainError } from '../domain/errors.js';
import { updateAccountAsOperator } from '../scheduling/account.js';
import { createApiKeyForUser } from '../scheduling/api-keys.js';
import type { UseCaseContext } from '../scheduling/context.js';
import { createAccount } from '../scheduling/create-account.js';

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
  key create --user <uuid>        Create an API key for a user
      --name <text>               Key name (default "Operator-issued key")

Options:
  --json      Print one JSON object on stdout (for scripts)
  --help, -h  Show this help

The database comes from DATABASE_URL (unset: an SQLite file under ./data/).`;

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
};

export interface CliIo {
  out: { write(text: string): unknown };
  err: { write(text: string): unknown };
}

export async function runCli(argv: string[], io: CliIo = { out: process.stdout, err: process.stderr }, env: Env = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err.write(`${(error as Error).message}\n\nRun with --help for usage.\n`);
    return 2;
  }
  const options = parsed.values as Options;
  const command = parsed.positionals.join(' ');
  if (options.help || command === '' || command === 'help') {
    io.out.write(`${USAGE}\n`);
    return command === '' && !options.help ? 2 : 0;
  }

  let handle: DbHandle | undefined;
  try {
    const config = loadConfig(env);
    handle = createDb(config.database);
    const ctx: UseCaseContext = { db: handle.db, now: Date.now };
    const migrated = await migrateToLatest(handle.db);
    if (migrated.applied.length > 0 && command !== 'migrate') io.err.write(`Applied migrations: ${migrated.applied.join(', ')}\n`);
    const result = await runCommand(command, options, ctx, migrated.applied);
    io.out.write(options.json ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
    return 0;
  } catch (error) {
    io.err.write(`${describeError(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await handle?.destroy();
  }
}

interface CommandResult {
  json: unknown;
  text: string;
}

async function runCommand(command: string, options: Options, ctx: UseCaseContext, applied: string[]): Promise<CommandResult> {
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
        places: optional(options, 'places')?.split(',').filter((place) => place.trim() !== ''),
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
    case 'key create': {
      const created = await createApiKeyForUser(ctx, required(options, 'user'), optional(options, 'name'));
      return {
        json: { user: { uuid: created.userUuid, username: created.username }, apiKey: created.apiKey },
        text: `API key for ${created.username} (shown only now): ${created.apiKey}`,
      };
    }
    default:
      throw new UsageError(`Unknown command "${command}". Run with --help for usage.`);
  }
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
};

function describeError(error: unknown): string {
  if (error instanceof UsageError || error instanceof ConfigError) return error.message;
  if (error instanceof DomainError) {
    if (error.errors && error.errors.length > 0) {
      return error.errors
        .map((fieldError) => {
          const field = fieldError.path.split('/')[1] ?? '';
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

