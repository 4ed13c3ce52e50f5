import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntegrationProvider } from '../../src/domain/integrations.js';
import { ConnectionUnusableError, withAccessToken } from '../../src/scheduling/integrations/provider-access.js';
import { startFakeGoogle } from '../fakes/google.js';
import { startFakeMicrosoft } from '../fakes/microsoft.js';
import type { OAuthProvider } from '../fakes/oauth-provider.js';
import { startFakeWebex } from '../fakes/webex.js';
import { startFakeZoom } from '../fakes/zoom.js';
import { createClock, DIALECTS } from '../helpers.js';
import { type Harness, startHarness } from './harness.js';

/**
 * Refresh tokens lapse when unused: Zoom's after 90 days, Webex's after 90, Microsoft's after
 * 90 days inactive, Google's after six months, and each stand-in refuses one as its provider
 * documents. A host who books nothing for months keeps a working connection all the same:
 * termin refreshes every connection idle for 30 days in the background, and a refusal there
 * marks the connection as any other would. Apart from the conformance story
 * (room-conformance.ts), whose slots would be in the past after these months.
 */
type StandIn = OAuthProvider & { clientId: string; clientSecret: string; env: Record<string, string> };

const DAY = 86_400_000;
const PROVIDERS: { provider: IntegrationProvider; label: string; place: string; lapseDays: number; start(now: () => number): Promise<StandIn> }[] = [
  { provider: 'zoom', label: 'Zoom', place: 'zoom', lapseDays: 90, start: (now) => startFakeZoom({ now }) },
  // Access tokens of an hour, not Webex's 14 days: each use after a month asks for a refresh.
  { provider: 'webex', label: 'Webex', place: 'webex', lapseDays: 90, start: (now) => startFakeWebex({ now, accessTokenSeconds: 3600 }) },
  { provider: 'microsoft', label: 'Microsoft', place: 'teamsForBusiness', lapseDays: 90, start: (now) => startFakeMicrosoft({ now }) },
  { provider: 'google', label: 'Google', place: 'google-meet', lapseDays: 183, start: (now) => startFakeGoogle({ now }) },
];

for (const dialect of DIALECTS) {
  for (const spec of PROVIDERS) {
    describe(`An idle ${spec.label} connection [${dialect}]`, { shuffle: false }, () => {
      let h: Harness;
      let fake: StandIn;
      const connection = async () => ((await h.api('GET', `/api/v1/users/${h.acme.owner.uuid}/connections`)).json() as { connections: Record<string, unknown>[] }).connections[0]!;
      // A call to the provider's API with the connection's access token, refreshed first where termin's record says it expired.
      const use = async () => withAccessToken(h.ctx, String((await connection()).uuid), (token) => h.ctx.integrations.oauth[spec.provider].fetchAccountEmail(token));
      const refreshes = () => fake.tokenCalls.filter((call) => call.grantType === 'refresh_token');
      const stoppedMails = () => h.sent.filter((mail) => mail.to.email === h.acme.owner.email && mail.subject.includes(`${spec.label} connection stopped working`)).length;
      const connect = async () => {
        const { callback } = await h.connect(h.acme.owner.uuid, spec.provider, fake);
        expect(callback.statusCode, callback.body).toBe(200);
      };

      beforeAll(async () => {
        const clock = createClock('2027-01-04T06:00:00.000Z');
        fake = await spec.start(clock.now);
        h = await startHarness(dialect, clock, fake.env, [spec.place, 'offline']);
        const saved = await h.api('PATCH', '/api/v1/account', { integrations: { [spec.provider]: { clientId: fake.clientId, clientSecret: fake.clientSecret } } });
        expect(saved.statusCode, saved.body).toBe(200);
        await connect();
      }, 60_000);

      afterAll(async () => {
        await h?.close();
        await fake?.close();
      });

      it(`is refused by ${spec.label} once its refresh token went unused for ${spec.lapseDays} days`, async () => {
        // Nothing runs in the background here: the connection is left alone, as before termin refreshed idle ones.
        h.clock.advance((spec.lapseDays + 1) * DAY);
        await expect(use()).rejects.toBeInstanceOf(ConnectionUnusableError);
        expect(refreshes().at(-1)).toEqual({ grantType: 'refresh_token', ok: false });
        expect(await connection()).toMatchObject({ status: 'error' });
        await connect();
      });

      it('is refreshed in the background every 30 days without a booking, and still works past the lapse', async () => {
        const before = { refreshes: refreshes().length, api: fake.apiCalls.length };
        const months = Math.ceil((spec.lapseDays + 1) / 31);
        for (let month = 1; month <= months; month += 1) {
          h.clock.advance(31 * DAY);
          await h.runJobs();
          expect(refreshes().slice(before.refreshes), `month ${month}`).toEqual(Array.from({ length: month }, () => ({ grantType: 'refresh_token', ok: true })));
          // Running again the same day asks nothing more.
          await h.runJobs();
          expect(refreshes().length - before.refreshes, `month ${month}`).toBe(month);
        }
        // Only the token endpoint was asked: no booking, no API call.
        expect(fake.apiCalls.length).toBe(before.api);
        expect(await connection()).toMatchObject({ status: 'connected', lastError: null });
        expect(await use()).toBeTruthy();
        expect(refreshes().length - before.refreshes).toBe(months);
      });

      it('turns the connection to error when the background refresh is refused, telling the host once', async () => {
        const before = { mails: stoppedMails(), events: h.webhookEvents('connection.error').length };
        fake.revokeAllGrants();
        h.clock.advance(31 * DAY);
        await h.runJobs();
        const failed = await connection();
        expect(failed).toMatchObject({ status: 'error' });
        expect(String(failed.lastError)).toMatch(new RegExp(`^${spec.label} refused the connection: .+ Connect it again\\.$`));
        expect(stoppedMails()).toBe(before.mails + 1);
        expect(h.webhookEvents('connection.error').length).toBe(before.events + 1);
        // A connection in error is not refreshed again, nor the host told again.
        const asked = fake.tokenCalls.length;
        h.clock.advance(31 * DAY);
        await h.runJobs();
        expect(fake.tokenCalls.length).toBe(asked);
        expect(stoppedMails()).toBe(before.mails + 1);
      });
    });
  }
}
