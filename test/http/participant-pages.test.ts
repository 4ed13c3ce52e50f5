import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { createManageToken } from '../../src/scheduling/meetings/manage-token.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';

const SLOT = '2027-01-06T08:00:00.000Z';

/** The participant's pages as the server draws them: what the button asks, and the way back to the booking page. */
for (const dialect of DIALECTS) {
  describe(`participant pages [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['offline'] });
    });
    afterAll(async () => t?.close());

    const topic = async (fields: Record<string, unknown>) => {
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Consultation', durationMinutes: 30, places: ['offline'], ...fields });
      expect(response.statusCode).toBe(201);
      return response.json() as { uuid: string };
    };
    const page = (url: string) => t.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
    const submitLabel = (body: string) => /<button type="submit" id="submit"[^>]*>([^<]*)<\/button>/.exec(body)?.[1];
    /** Books `start` on the topic and answers the manage page's token. */
    const book = async (topicUuid: string, lang: string, start = SLOT) => {
      const response = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [{ start, username: acme.owner.username }],
        email: `${lang}-${topicUuid.slice(0, 8)}@example.com`,
        lang,
        name: 'Jan Kowalski',
        place: 'offline',
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
      });
      expect(response.statusCode).toBe(201);
      const uuid = (response.json() as { meetings: { uuid: string }[] }).meetings[0]!.uuid;
      return { uuid, token: createManageToken(t.ctx.secretKey, uuid) };
    };
    const bookAgain = (body: string) => /<a id="book-again" class="primary" href="([^"]*)">([^<]*)<\/a>/.exec(body);

    it('an approval topic asks "Request booking" (pl „Poproś o ten termin”); any other topic confirms', async () => {
      const asked = await topic({ public: true, requiresApproval: true });
      const plain = await topic({ public: true });
      expect(submitLabel((await page(`/book/${acme.owner.username}/${asked.uuid}?lang=en`)).body)).toBe('Request booking');
      expect(submitLabel((await page(`/book/${acme.owner.username}/${asked.uuid}?lang=pl`)).body)).toBe('Poproś o ten termin');
      expect(submitLabel((await page(`/book/${acme.owner.username}/${plain.uuid}?lang=en`)).body)).toBe('Confirm booking');
    });

    it('after a cancel the manage page leads back to the booking page, in the page’s language; while booked it does not', async () => {
      const open = await topic({ public: true });
      const { token } = await book(open.uuid, 'en', '2027-01-07T08:00:00.000Z');
      expect(bookAgain((await page(`/booking/${token}`)).body)).toBeNull();
      expect((await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, { reason: 'Plans changed' })).statusCode).toBe(200);
      const link = bookAgain((await page(`/booking/${token}`)).body);
      expect(link?.slice(1)).toEqual([`/book/${acme.owner.username}/${open.uuid}?lang=en`, 'Book another time']);
      // The link leads to a page that takes bookings.
      expect((await page(link![1]!)).statusCode).toBe(200);
      expect(bookAgain((await page(`/booking/${token}?lang=pl`)).body)?.slice(1)).toEqual([`/book/${acme.owner.username}/${open.uuid}?lang=pl`, 'Umów inny termin']);
    });

    it('after a decline too (in Polish); not for a topic without a booking page', async () => {
      const asked = await topic({ public: true, requiresApproval: true });
      const request = await book(asked.uuid, 'pl', '2027-01-08T08:00:00.000Z');
      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request.uuid}/decline`, { reason: 'Urlop' })).statusCode).toBe(200);
      const body = (await page(`/booking/${request.token}`)).body;
      expect(body).toContain('Odrzucona');
      expect(bookAgain(body)?.slice(1)).toEqual([`/book/${acme.owner.username}/${asked.uuid}?lang=pl`, 'Umów inny termin']);

      const internal = await topic({ public: false });
      const { token } = await book(internal.uuid, 'en', '2027-01-08T10:00:00.000Z');
      expect((await call(t.app, null, 'POST', `/api/v1/public/bookings/${token}/cancel`, {})).statusCode).toBe(200);
      const cancelled = (await page(`/booking/${token}`)).body;
      expect(cancelled).toContain('Cancelled');
      expect(bookAgain(cancelled)).toBeNull();
    });
  });
}
