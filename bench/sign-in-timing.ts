/**
 * `POST /app/login` for a member's address and for a stranger's, alternating, over HTTP: the
 * median and p90 of each, and their difference. The form must not tell who is a member, by
 * its words or by its time. Each member request is a fresh one: the links it made are deleted
 * between requests (outside the timing), so the per-member limit never cuts its work short.
 *
 * npx tsx bench/sign-in-timing.ts [requests=200] [sqlite|postgres|both]
 */
import { postgresReachable, startBenchServer, type BenchDialect } from './support.js';
import { createAccount } from '../src/scheduling/account/create-account.js';

const requests = Number(process.argv[2] ?? 200);
const which = process.argv[3] ?? 'both';

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function run(dialect: BenchDialect): Promise<void> {
  // One proxy in front: each request names its own client address, so the per-address limit
  // (10 a minute) is never what is measured.
  const server = await startBenchServer(dialect, { TRUST_PROXY: '1' });
  try {
    const owner = 'member@bench.test';
    await createAccount(server.ctx, {
      name: 'Acme',
      ownerEmail: owner,
      ownerFirstName: 'Olga',
      ownerLastName: 'Owner',
      maxUsers: 5,
      timezone: 'Europe/Warsaw',
      places: ['offline'],
    });
    const form = await fetch(`${server.url}/app/login`);
    const cookie = form.headers.get('set-cookie')!.split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    let address = 0;
    const post = async (email: string) => {
      address += 1;
      const started = process.hrtime.bigint();
      const response = await fetch(`${server.url}/app/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, 'x-forwarded-for': `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}` },
        body: new URLSearchParams({ csrf, email, lang: 'en' }).toString(),
      });
      await response.text();
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (response.status !== 200) throw new Error(`POST /app/login: ${response.status}`);
      await server.ctx.db.deleteFrom('app_sign_in_links').execute();
      return ms;
    };
    for (let i = 0; i < 20; i += 1) await post(i % 2 === 0 ? owner : `warm${i}@bench.test`);
    const member: number[] = [];
    const stranger: number[] = [];
    for (let i = 0; i < requests; i += 1) {
      // Alternating, and swapping who goes first, so drift in the machine's speed hits both alike.
      if (i % 2 === 0) {
        member.push(await post(owner));
        stranger.push(await post(`nobody${i}@bench.test`));
      } else {
        stranger.push(await post(`nobody${i}@bench.test`));
        member.push(await post(owner));
      }
    }
    const m = quantile(member, 0.5);
    const s = quantile(stranger, 0.5);
    console.log(
      `${dialect}: ${requests} each; member median ${m.toFixed(2)} ms (p90 ${quantile(member, 0.9).toFixed(2)}), stranger median ${s.toFixed(2)} ms (p90 ${quantile(stranger, 0.9).toFixed(2)}); member − stranger ${(m - s).toFixed(2)} ms`,
    );
  } finally {
    await server.close();
  }
}

if (which === 'sqlite' || which === 'both') await run('sqlite');
if (which === 'postgres' || which === 'both') {
  if (await postgresReachable()) await run('postgres');
  else console.log('postgres: not reachable, skipped');
}
