import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lang } from '../src/domain/lang.js';
import type { RenderedMessage } from '../src/mail/message.js';
import { type ReminderFacts, reminderSmsText } from '../src/mail/reminder-message.js';
import { addTeamMember } from '../src/scheduling/account/teams.js';
import { authenticate } from '../src/scheduling/authenticate.js';
import { requestSignInLink } from '../src/scheduling/host-app/sign-in.js';
import { startFakeSmsapi, type FakeSmsapi } from './fakes/smsapi.js';
import { type FakeZoom, startFakeZoom } from './fakes/zoom.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, runJobsCapturingMail, type TestApp } from './helpers.js';
import { englishLeaks, OTHER_LANGS, visibleText } from './i18n/leaks.js';
import { createRoomBookings, freeSlots, type Harness, type RoomBookings, startHarness } from './integrations/harness.js';
import { startReceiver, type Receiver } from './net/receivers.js';

/**
 * Issue 42: every notice termin writes in full (requests, reminders by e-mail and SMS, sign-in
 * links, invitations, connections, rooms without a link, a disabled webhook) reaches its reader
 * in their language: the participant's meeting `lang`, the member's chosen `language`. For each
 * language but English: no English in the subject, the text or the HTML's visible text, times
 * as Intl writes them for that language in the reader's zone, the HTML part marked with the
 * language. Test data carries no English words (Acme, Konsultacja, Jan Kowalski).
 */

const HOUR = 3_600_000;
const MINUTE = 60_000;
const START = '2027-01-04T06:00:00.000Z';
/** Wednesday 6 January 2027, 09:00 in Warsaw: the request. */
const REQUESTED = Date.parse('2027-01-06T08:00:00.000Z');
/** Thursday 7 January 2027, 11:00 in Warsaw, 07:00 in São Paulo: the reminded meeting. */
const REMINDED = Date.parse('2027-01-07T10:00:00.000Z');
const HOST_ZONE = 'Europe/Warsaw';
const PARTICIPANT_ZONE = 'America/Sao_Paulo';

/** A short date and time as Intl writes it for the language in the zone (what subjects and lists show). */
const intlDateTime = (instant: number, lang: Lang, timeZone: string) =>
  new Intl.DateTimeFormat(lang === 'pl' ? 'pl-PL' : lang, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(instant);

/** How the greeting and a reminder's SMS begin in each language: the message is in it, not merely free of English. */
const OPENINGS: Record<Exclude<Lang, 'en'>, { greeting: string; sms: string }> = {
  pl: { greeting: 'Dzień dobry', sms: 'Przypomnienie:' },
  de: { greeting: 'Guten Tag', sms: 'Erinnerung:' },
  uk: { greeting: 'Добрий день', sms: 'Нагадування:' },
  es: { greeting: 'Hola', sms: 'Recordatorio:' },
  fr: { greeting: 'Bonjour', sms: 'Rappel :' },
};

/** A notice carries no invitation (a booking's confirmation, update or cancellation does: the mail area's, tested there). */
const isNotice = (message: RenderedMessage) => message.ics.content === '';

/** Links are no words: a manage link's `/booking/` is not English shown to anyone. */
const withoutLinks = (text: string) => text.replace(/https?:\/\/\S+/g, ' ');

/** What a reader sees of an e-mail: subject, plain text and the HTML part's visible text. */
function expectInLanguage(message: RenderedMessage, lang: Exclude<Lang, 'en'>, what: string): void {
  const seen = withoutLinks(`${message.subject}\n${message.text}\n${visibleText(message.html)}`);
  expect(englishLeaks(seen, lang), `${what} (${lang}): ${message.subject}\n${message.text}`).toEqual([]);
  expect(message.text.startsWith(OPENINGS[lang].greeting), `${what} (${lang}) greets in the language: ${message.text}`).toBe(true);
  expect(message.html).toContain(`<html lang="${lang}">`);
}

/** GSM 03.38's basic set: an SMS of these alone takes 160 characters a segment (153 when joined); any other character makes it UCS-2 (70, 67). */
const GSM_7 = /^[@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&'()*+,\-./0-9:;<=>?¡A-ZÄÖÑÜ§¿a-zäöñüà]*$/;
const segments = (text: string) => {
  const length = [...text].length;
  return GSM_7.test(text) ? (length <= 160 ? 1 : Math.ceil(length / 153)) : length <= 70 ? 1 : Math.ceil(length / 67);
};

describe('the reminder SMS', () => {
  const start = Date.parse('2027-09-23T10:00:00.000Z');
  const facts = (lang: Lang, manageUrl: string): ReminderFacts => ({
    recipient: 'participant',
    to: { name: 'Jan Kowalski', email: 'jan@example.com' },
    lang,
    timezone: 'Europe/Warsaw',
    accountName: 'Acme',
    topicName: 'Konsultacja',
    withName: 'Olga Nowak',
    start,
    end: start + 30 * MINUTE,
    place: 'offline',
    where: null,
    manageUrl,
  });
  /** No link, a short one, and one as long as termin's (`/booking/`, the meeting's uuid, a dot and 32 characters of MAC). */
  const links = ['', 'https://t.example/b/x', 'https://termin.example.com/booking/0195f3a2-7c4e-7b8a-9d1e-2f3a4b5c6d7e.AbCdEfGhIjKlMnOpQrStUvWxYz012345'];

  it.each(['de', 'es', 'fr'] as const)('%s stays in GSM-7, no longer than the English one: never more segments', (lang) => {
    for (const link of links) {
      const english = reminderSmsText(facts('en', link));
      const text = reminderSmsText(facts(lang, link));
      expect(GSM_7.test(text), text).toBe(true);
      expect([...text].length, text).toBeLessThanOrEqual([...english].length);
      expect(segments(text), text).toBeLessThanOrEqual(segments(english));
    }
  });

  it.each(['pl', 'uk'] as const)('%s, in UCS-2 as its letters need, takes at most one segment more than the English one', (lang) => {
    for (const link of links) {
      const text = reminderSmsText(facts(lang, link));
      expect(GSM_7.test(text), text).toBe(false);
      expect(segments(text), text).toBeLessThanOrEqual(segments(reminderSmsText(facts('en', link))) + 1);
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`notices to participants and members, in their language [${dialect}]`, () => {
    let t: TestApp;
    let smsapi: FakeSmsapi;
    let down: Receiver;
    const mail: RenderedMessage[] = [];
    beforeAll(async () => {
      smsapi = await startFakeSmsapi();
      down = await startReceiver((_req, res) => res.writeHead(500).end());
      t = await createTestApp(dialect, createClock(START), { ...smsapi.env, ALLOW_PRIVATE_URLS: 'true' });
    });
    afterAll(async () => {
      await t?.close();
      await smsapi?.close();
      await down?.close();
    });

    /** Runs the due jobs; the e-mails they sent to `to`. */
    const drain = async (to: readonly string[]) => {
      mail.length = 0;
      await runJobsCapturingMail(t.ctx, mail);
      return mail.filter((message) => to.includes(message.to.email) && isNotice(message));
    };

    it.each(OTHER_LANGS)('%s: request received, awaiting, declined; reminders by e-mail and SMS; sign-in link; invitation; webhook disabled', async (lang) => {
      t.clock.set(START);
      const acme = await createTestAccount(t.ctx, { name: 'Acme', ownerLastName: 'Nowak', timezone: HOST_ZONE, places: ['offline'] });
      const owner = acme.owner;
      expect((await call(t.app, acme.apiKey, 'PATCH', `/api/v1/users/${owner.uuid}`, { language: lang })).statusCode).toBe(200);
      const topic = async (fields: Record<string, unknown>) => {
        const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
          durationMinutes: 30,
          places: ['offline'],
          placeDetails: { offline: 'ul. Prosta 1, Warszawa' },
          ...fields,
        });
        expect(created.statusCode, created.body).toBe(201);
        return created.json().uuid as string;
      };
      const participant = `jan.${lang}.${dialect}@example.com`;
      const book = async (topicUuid: string, start: number) => {
        const booked = await call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
          dates: [{ start: new Date(start).toISOString(), username: owner.username }],
          email: participant,
          lang,
          name: 'Jan Kowalski',
          phone: '601 234 567',
          place: 'offline',
          meetingTopic: topicUuid,
          timezone: PARTICIPANT_ZONE,
        });
        expect(booked.statusCode, booked.body).toBe(201);
        return booked.json().meetings[0].uuid as string;
      };
      const readers = [participant, owner.email];
      const one = (messages: RenderedMessage[], to: string) => {
        const found = messages.filter((message) => message.to.email === to);
        expect(found, `one e-mail to ${to}: ${found.map((message) => message.subject).join(' | ')}`).toHaveLength(1);
        return found[0]!;
      };

      // A request: the participant hears it was received, the host that it awaits them.
      const approval = await topic({ name: 'Konsultacja', requiresApproval: true });
      const request = await book(approval, REQUESTED);
      const requested = await drain(readers);
      const received = one(requested, participant);
      expectInLanguage(received, lang, 'request received');
      expect(received.subject).toContain(intlDateTime(REQUESTED, lang, PARTICIPANT_ZONE));
      const awaiting = one(requested, owner.email);
      expectInLanguage(awaiting, lang, 'request awaiting the host');
      expect(awaiting.subject).toContain('Konsultacja');
      expect(awaiting.text).toContain(intlDateTime(Date.parse(START) + 24 * HOUR, lang, HOST_ZONE));

      expect((await call(t.app, acme.apiKey, 'POST', `/api/v1/meetings/${request}/decline`, {})).statusCode).toBe(200);
      const declined = one(await drain(readers), participant);
      expectInLanguage(declined, lang, 'request declined');
      expect(declined.subject).toContain(intlDateTime(REQUESTED, lang, PARTICIPANT_ZONE));

      // Reminders: the participant's a day before (e-mail) and an hour before (SMS), the host's an hour before.
      const reminded = await topic({
        name: 'Beratung',
        reminders: [
          { minutesBefore: 1440, channel: 'email', to: 'participant' },
          { minutesBefore: 60, channel: 'sms', to: 'participant' },
          { minutesBefore: 60, channel: 'email', to: 'host' },
        ],
      });
      await book(reminded, REMINDED);
      await drain(readers);
      t.clock.set(REMINDED - 1440 * MINUTE);
      const dayBefore = one(await drain(readers), participant);
      expectInLanguage(dayBefore, lang, 'participant reminder');
      expect(dayBefore.subject).toContain(intlDateTime(REMINDED, lang, PARTICIPANT_ZONE));
      t.clock.set(REMINDED - 60 * MINUTE);
      const hostReminder = one(await drain(readers), owner.email);
      expectInLanguage(hostReminder, lang, 'host reminder');
      expect(hostReminder.subject).toContain(intlDateTime(REMINDED, lang, HOST_ZONE));
      const sms = smsapi.sent.filter((sent) => sent.to === '48601234567' && sent.message.includes(intlDateTime(REMINDED, lang, PARTICIPANT_ZONE)));
      expect(sms, smsapi.sent.map((sent) => sent.message).join('\n')).toHaveLength(1);
      expect(sms[0]!.message.startsWith(`${OPENINGS[lang].sms} Beratung`), sms[0]!.message).toBe(true);
      expect(englishLeaks(withoutLinks(sms[0]!.message), lang), sms[0]!.message).toEqual([]);

      // The member's sign-in link, asked for from an English page: the member chose their language.
      await requestSignInLink(t.ctx, owner.email, 'en');
      const signIn = one(await drain(readers), owner.email);
      expectInLanguage(signIn, lang, 'sign-in link');
      expect(signIn.text).toMatch(/\/app\/login\/[A-Za-z0-9_-]{43}/);

      // A new member's invitation, in the language of the page that added them.
      const team = await call(t.app, acme.apiKey, 'POST', '/api/v1/teams', { name: 'Kadra' });
      expect(team.statusCode, team.body).toBe(201);
      const anna = `anna.${lang}.${dialect}@example.com`;
      await addTeamMember(t.ctx, await authenticate(t.ctx, acme.apiKey), team.json().uuid, { firstName: 'Anna', lastName: 'Lis', email: anna }, { lang });
      const invitation = one(await drain([anna]), anna);
      expectInLanguage(invitation, lang, 'invitation');
      expect(invitation.subject).toContain('Acme');

      // A webhook failing for 3 days is disabled; its admin is told in their language.
      const hook = await call(t.app, acme.apiKey, 'POST', '/api/v1/webhooks', { url: `${down.url}/hook`, events: ['meeting.scheduled'] });
      expect(hook.statusCode, hook.body).toBe(201);
      await book(reminded, REMINDED + 2 * HOUR);
      await drain(readers);
      t.clock.advance(25 * HOUR);
      await drain(readers);
      t.clock.advance(48 * HOUR);
      await book(reminded, REMINDED + 7 * 24 * HOUR);
      const disabled = one(
        (await drain(readers)).filter((message) => message.text.includes(hook.json().uuid)),
        owner.email,
      );
      expectInLanguage(disabled, lang, 'webhook disabled');
      expect(disabled.subject).toContain(down.url);
    });
  });

  describe(`connection and room notices, in the member's language [${dialect}]`, { shuffle: false }, () => {
    let h: Harness;
    let zoom: FakeZoom;
    let bookings: RoomBookings;
    const owner = () => h.acme.owner;
    const HOST_ZONE_HERE = 'Europe/Kyiv';

    beforeAll(async () => {
      const clock = createClock('2027-01-04T06:00:00.000Z');
      zoom = await startFakeZoom({ now: clock.now, accountEmail: 'olga@zoom.example' });
      h = await startHarness(dialect, clock, zoom.env, ['zoom', 'offline']);
      const saved = await h.api('PATCH', '/api/v1/account', { integrations: { zoom: { clientId: zoom.clientId, clientSecret: zoom.clientSecret } } });
      if (saved.statusCode !== 200) throw new Error(saved.body);
      // The member's own zone (the API sets it with their availability, which would move the slots): notices show times in it.
      await h.ctx.db.updateTable('users').set({ timezone: HOST_ZONE_HERE }).where('id', '=', owner().uuid).execute();
      const topic = await h.api('POST', '/api/v1/meeting-topics', { name: 'Konsultacja', durationMinutes: 30, places: ['zoom', 'offline'], bookingWindowDays: 365 });
      const topicUuid = (topic.json() as { uuid: string }).uuid;
      // Days ahead: the clock moves by hours here, and every booking must stay in the future.
      const slots = await freeSlots(h.app, owner().username, topicUuid, 90);
      bookings = createRoomBookings(h, 'zoom', topicUuid, slots.slice(50));
    }, 60_000);

    afterAll(async () => {
      await h?.close();
      await zoom?.close();
    });

    /** Runs the due jobs; the owner's e-mails they sent. */
    const ownerMails = async () => {
      const before = h.sent.length;
      await h.runJobs();
      return h.sent.slice(before).filter((mail) => mail.to.email === owner().email && isNotice(mail));
    };
    const startOf = async (uuid: string) => Date.parse((await bookings.meeting(uuid)).start);

    it.each(OTHER_LANGS)('%s: now connected, no room for a meeting and its digest, connection stopped working, no link yet and its digest', async (lang) => {
      const language = await h.api('PATCH', `/api/v1/users/${owner().uuid}`, { language: lang });
      expect(language.statusCode, language.body).toBe(200);
      // A new window for every kind of notice.
      h.clock.advance(2 * HOUR);

      const { callback } = await h.connect(owner().uuid, 'zoom', zoom);
      expect(callback.statusCode, callback.body).toBe(200);
      const [connected, ...moreConnected] = await ownerMails();
      expect(moreConnected).toEqual([]);
      expectInLanguage(connected!, lang, 'now connected');
      expect(connected!.subject).toContain('olga@zoom.example');

      // Zoom refuses a meeting's room for good: the host is told, then told of the next ones in one digest.
      zoom.failNextApiCalls(1, 400);
      const refused = await bookings.book({ name: 'Jan Kowalski' });
      const [failed, ...moreFailed] = await ownerMails();
      expect(moreFailed).toEqual([]);
      expectInLanguage(failed!, lang, 'no room for a meeting');
      expect(failed!.text).toContain(intlDateTime(await startOf(refused), lang, HOST_ZONE_HERE));
      zoom.failNextApiCalls(1, 400);
      const refusedToo = await bookings.book({ name: 'Ewa Wiśniewska' });
      expect(await ownerMails()).toEqual([]);
      h.clock.advance(HOUR + 1_000);
      const [failedDigest, ...moreDigests] = await ownerMails();
      expect(moreDigests).toEqual([]);
      expectInLanguage(failedDigest!, lang, 'no room for meetings (digest)');
      expect(failedDigest!.text).toContain(intlDateTime(await startOf(refusedToo), lang, HOST_ZONE_HERE));
      zoom.failNextApiCalls(0, 500);

      // The grant is revoked: the connection stops working, and a meeting booked there has no link yet.
      zoom.revokeAllGrants();
      zoom.expireAccessTokens();
      await bookings.book({ name: 'Jan Kowalski' });
      const [stopped, ...moreStopped] = await ownerMails();
      expect(moreStopped).toEqual([]);
      expectInLanguage(stopped!, lang, 'connection stopped working');
      const waiting = await bookings.book({ name: 'Jan Kowalski' });
      const [noLink, ...moreNoLinks] = await ownerMails();
      expect(moreNoLinks).toEqual([]);
      expectInLanguage(noLink!, lang, 'no link yet');
      expect(noLink!.text).toContain(intlDateTime(await startOf(waiting), lang, HOST_ZONE_HERE));
      const waitingToo = await bookings.book({ name: 'Ewa Wiśniewska' });
      expect(await ownerMails()).toEqual([]);
      h.clock.advance(HOUR + 1_000);
      const [noLinkDigest, ...moreNoLink] = await ownerMails();
      expect(moreNoLink).toEqual([]);
      expectInLanguage(noLinkDigest!, lang, 'no link yet (digest)');
      expect(noLinkDigest!.text).toContain(intlDateTime(await startOf(waitingToo), lang, HOST_ZONE_HERE));
    });
  });
}
