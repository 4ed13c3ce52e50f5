import { formatRange } from '../../src/domain/formats.js';
import { HAS_CHROMIUM } from '../helpers.js';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chooseFirstSlot, createTopic, seriousViolations, shot, tabTo, useServerAndBrowser } from './harness.js';

/**
 * The booking page in real Chromium against the real server: one server and one browser for
 * the file; each test opens its own context (zone, language, viewport) and books on a topic
 * of its own, so no test depends on another's bookings.
 */
describe.runIf(HAS_CHROMIUM)('the booking page in a browser', () => {
  const t = useServerAndBrowser();

  async function meetingsOf(topicUuid: string) {
    const response = await t.server.api<{
      meetings: { uuid: string; meetingTopic: string; start: string; username: string; status: string; participant: { name: string; timezone: string; lang: string } }[];
    }>('GET', `/meetings?username=${t.server.owner.username}&limit=200`);
    expect(response.status).toBe(200);
    return response.body.meetings.filter((meeting) => meeting.meetingTopic === topicUuid);
  }

  it('a participant in New York books a slot shown in their own zone, and the host sees it in GET /meetings', async () => {
    const topic = await createTopic(t.server, {
      name: 'Intro call',
      description: 'A first talk.\nBring questions.',
      places: ['zoom', 'offline'],
      form: [{ key: 'company', label: 'Company', required: true }],
    });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`, { timezoneId: 'America/New_York' });
    await expect.poll(() => page.inputValue('#tz')).toBe('America/New_York');
    await shot(page, 'book-01-calendar');

    const { start } = await chooseFirstSlot(page);
    // The slot's label is the UTC start in New York's wall-clock time.
    const expectedLabel = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'America/New_York' }).format(new Date(start));
    expect(await page.textContent(`#slots button[data-start="${start}"]`)).toBe(expectedLabel);
    await page.fill('input[name=name]', 'Jan Kowalski');
    await page.fill('input[name=email]', 'jan@example.com');
    await page.check('input[name=place][value=zoom]');
    await page.fill('input[name="form.company"]', 'Acme');
    await page.fill('textarea[name=note]', 'See you');
    await shot(page, 'book-02-form');
    expect(await seriousViolations(page)).toEqual([]);
    await page.click('#submit');
    await page.locator('#done').waitFor();
    expect(await page.textContent('#h-done')).toBe('You are booked');
    expect(await page.textContent('#done-text')).toContain('jan@example.com');
    await shot(page, 'book-03-confirmation');
    expect(await seriousViolations(page)).toEqual([]);

    const meetings = await meetingsOf(topic.uuid);
    expect(meetings).toHaveLength(1);
    expect(meetings[0]).toMatchObject({ start, status: 'confirmed', username: t.server.owner.username, place: 'zoom', form: { company: 'Acme' }, note: 'See you' });
    expect(meetings[0]!.participant).toMatchObject({ name: 'Jan Kowalski', timezone: 'America/New_York', lang: 'en' });
  });

  it('the confirmation shows the whole booking: start and end in the zone, host, join link, calendar links, .ics and the manage link', async () => {
    const room = 'https://zoom.us/j/222?pwd=abc';
    const topic = await createTopic(t.server, { name: 'Confirm all', places: ['zoom', 'offline'], placeDetails: { zoom: room, offline: 'ul. Prosta 1, 00-001 Warszawa' } });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`, { timezoneId: 'America/New_York' });
    const { start } = await chooseFirstSlot(page);
    await page.fill('input[name=name]', 'Cora Confirm');
    await page.fill('input[name=email]', 'cora@example.com');
    await page.check('input[name=place][value=zoom]');
    await page.click('#submit');
    await page.locator('#booking-summary').waitFor();
    const end = Date.parse(start) + 30 * 60_000;
    // As the e-mail words it (formats.ts), in the en-GB browser's locale: 24-hour, day first.
    expect(await page.textContent('#done #when')).toBe(formatRange(Date.parse(start), end, 'America/New_York', 'en-GB'));
    expect(await page.textContent('#done #host')).toBe('Olga Owner');
    expect(await page.getAttribute('#done #place a.join', 'href')).toBe(room);

    const google = new URL((await page.getAttribute('#cal-google', 'href'))!);
    expect(google.origin + google.pathname).toBe('https://calendar.google.com/calendar/render');
    const compact = (ms: number) =>
      new Date(ms)
        .toISOString()
        .replace(/[-:]/g, '')
        .replace(/\.\d{3}/, '');
    expect(google.searchParams.get('dates')).toBe(`${compact(Date.parse(start))}/${compact(end)}`);
    expect(google.searchParams.get('location')).toBe(room);
    const outlook = new URL((await page.getAttribute('#cal-outlook', 'href'))!);
    expect(outlook.hostname).toBe('outlook.live.com');
    expect(outlook.searchParams.get('startdt')).toBe(new Date(start).toISOString().replace('.000Z', 'Z'));

    // The manage link is the one the e-mail carries, and the .ics is the meeting.
    const manage = (await page.getAttribute('#manage-link', 'href'))!;
    const [meeting] = await meetingsOf(topic.uuid);
    expect(manage.startsWith(`${t.server.url}/booking/${meeting!.uuid}.`)).toBe(true);
    expect(await page.isVisible('#manage-link')).toBe(true);
    const ics = await page.request.get(`${t.server.url}${await page.getAttribute('#cal-ics', 'href')}`);
    expect(ics.headers()['content-type']).toContain('text/calendar');
    const body = (await ics.text()).replace(/\r?\n /g, '');
    expect(body).toContain(`UID:${meeting!.uuid}@termin`);
    expect(body).toContain(`DTSTART:${compact(Date.parse(start))}`);
    expect(body).toContain(`URL;VALUE=URI:${manage}`);
    await shot(page, 'book-06-confirmation-whole');
    expect(await seriousViolations(page)).toEqual([]);
  });

  /** The zone's offset now as the page should label it ("UTC+05:30"), from Node's own Intl. */
  function offsetNow(zone: string): string {
    const name = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(new Date()).find((part) => part.type === 'timeZoneName')!.value;
    return name === 'GMT' ? 'UTC+00:00' : name.replace('GMT', 'UTC').replace('-', '−');
  }

  it('the zone field finds cities, countries, old names and offsets, shows local time and offset, and the times follow', async () => {
    const topic = await createTopic(t.server, { name: 'Zone switch' });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
    await page.locator('#slots button[data-start]').first().waitFor();
    const pick = async (query: string): Promise<string> => {
      await page.fill('#tz', query);
      await page.locator('#tz-options li').first().waitFor();
      await page.press('#tz', 'Enter');
      return page.inputValue('#tz');
    };
    const cases: [string, string][] = [
      ['Warsaw', 'Europe/Warsaw'],
      ['new york', 'America/New_York'],
      ['Kolkata', 'Asia/Kolkata'],
      ['calcutta', 'Asia/Kolkata'],
      ['japan', 'Asia/Tokyo'],
      ['zürich', 'Europe/Zurich'],
      ['sao paulo', 'America/Sao_Paulo'],
      ['asia/tokyo', 'Asia/Tokyo'],
    ];
    for (const [query, zone] of cases) expect([query, await pick(query)]).toEqual([query, zone]);

    // Each suggestion: the city and country, then the zone, its local time now and its offset.
    await page.fill('#tz', 'kolk');
    const option = page.locator('#tz-options li').first();
    expect(await option.textContent()).toContain('Kolkata, India');
    expect(await option.textContent()).toContain(offsetNow('Asia/Kolkata'));
    const localNow = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Kolkata' });
    const text = (await option.textContent())!;
    expect([localNow.format(new Date()), localNow.format(new Date(Date.now() - 60_000))].some((time) => text.includes(time))).toBe(true);
    expect(await page.getAttribute('#tz', 'aria-expanded')).toBe('true');
    await shot(page, 'book-04-zone-suggestions');
    expect(await seriousViolations(page)).toEqual([]);

    // An offset applies a zone that is at that offset now.
    for (const query of ['GMT+2', 'UTC+02:00', 'utc-5']) {
      const zone = await pick(query);
      expect([query, offsetNow(zone)]).toEqual([query, query === 'utc-5' ? 'UTC−05:00' : 'UTC+02:00']);
    }

    // The times follow the chosen zone.
    await pick('Tokyo');
    const tokyo = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Asia/Tokyo' });
    await expect
      .poll(async () => {
        const first = await page.locator('#slots button[data-start]').first().getAttribute('data-start');
        const label = await page.locator('#slots button[data-start]').first().textContent();
        return first !== null && label === tokyo.format(new Date(first));
      })
      .toBe(true);

    // Nothing matches: the entry stays, marked, with a message; the times stay in Tokyo.
    await page.fill('#tz', 'Atlantis');
    await page.press('#tz', 'Enter');
    expect(await page.inputValue('#tz')).toBe('Atlantis');
    expect(await page.getAttribute('#tz', 'aria-invalid')).toBe('true');
    expect(await page.textContent('#tz-error')).toContain('Atlantis');
    expect(await page.textContent('#tz-error')).toContain('Asia/Tokyo');
    await shot(page, 'book-05-zone-unknown');
    await page.locator('#tz').blur();
    expect(await page.inputValue('#tz')).toBe('Atlantis');
    expect(await pick('warsaw')).toBe('Europe/Warsaw');
    expect(await page.getAttribute('#tz', 'aria-invalid')).toBeNull();
    expect(await page.textContent('#tz-error')).toBe('');
  });

  it('in Polish, countries are found by their Polish names and the hint’s examples work', async () => {
    const topic = await createTopic(t.server, { name: 'Strefa' });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=pl`, { timezoneId: 'Asia/Tokyo', locale: 'pl-PL' });
    await page.locator('#slots button[data-start]').first().waitFor();
    expect(await page.textContent('#tz-hint')).toContain('Polska');
    for (const [query, zone] of [
      ['Polska', 'Europe/Warsaw'],
      ['indie', 'Asia/Kolkata'],
      ['Niemcy', 'Europe/Berlin'],
      ['New York', 'America/New_York'],
    ] as const) {
      await page.fill('#tz', query);
      await page.locator('#tz-options li').first().waitFor();
      await page.press('#tz', 'Enter');
      expect([query, await page.inputValue('#tz')]).toEqual([query, zone]);
    }
    await page.fill('#tz', 'Atlantyda');
    await page.press('#tz', 'Enter');
    expect(await page.textContent('#tz-error')).toContain('Żadna strefa czasowa nie pasuje do „Atlantyda”');
  });

  it('a ?timezone= that is not a zone is said on the page and stays said', async () => {
    const topic = await createTopic(t.server, { name: 'Zone link' });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?timezone=GMT%2B2`);
    await page.locator('#slots button[data-start]').first().waitFor();
    expect(await page.textContent('#tz-error')).toContain('GMT+2');
    expect(await page.getAttribute('#tz', 'aria-invalid')).toBe('true');
    expect(await page.inputValue('#tz')).toBe('Europe/Warsaw');
    await page.focus('#tz');
    await page.locator('#tz').blur();
    expect(await page.textContent('#tz-error')).toContain('GMT+2');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('the Polish page: Accept-Language pl, or ?lang=pl, and the booking is in Polish', async () => {
    const topic = await createTopic(t.server, { name: 'Konsultacja', places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`, { locale: 'pl-PL' });
    expect(await page.getAttribute('html', 'lang')).toBe('pl');
    expect(await page.textContent('#h-day')).toBe('Wybierz dzień');
    await shot(page, 'pl-01-calendar');
    await chooseFirstSlot(page);
    expect(await page.textContent('label[for=f-name]')).toContain('Imię i nazwisko');
    await page.fill('input[name=name]', 'Zofia Żółć');
    await page.fill('input[name=email]', 'zofia@example.com');
    await page.click('#submit');
    await page.locator('#done').waitFor();
    expect(await page.textContent('#h-done')).toBe('Rezerwacja potwierdzona');
    await shot(page, 'pl-02-confirmation');
    const meetings = await meetingsOf(topic.uuid);
    expect(meetings.map((meeting) => meeting.participant.lang)).toEqual(['pl']);

    // ?lang= wins over the browser's language, both ways.
    const english = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=en`, { locale: 'pl-PL' });
    expect(await english.textContent('#h-day')).toBe('Choose a day');
    const polish = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=pl`);
    expect(await polish.textContent('#h-day')).toBe('Wybierz dzień');
  });

  it('keyboard only: from the first Tab to the confirmation, no mouse', async () => {
    const topic = await createTopic(t.server, { name: 'Keyboard', places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
    await page.locator('button[data-date]').first().waitFor();
    await tabTo(page, 'button[data-date]');
    // The focused element shows a visible focus ring.
    expect(await page.evaluate(`getComputedStyle(document.activeElement).outlineStyle`)).toBe('solid');
    await page.keyboard.press('Enter');
    await tabTo(page, '#slots button[data-start]');
    const start = await page.evaluate(`document.activeElement.getAttribute('data-start')`);
    await page.keyboard.press('Enter');
    await tabTo(page, 'input[name=name]');
    await page.keyboard.type('Kim Keys');
    await page.keyboard.press('Tab');
    await page.keyboard.type('kim@example.com');
    await tabTo(page, '#submit');
    await shot(page, 'keyboard-01-form');
    await page.keyboard.press('Enter');
    await page.locator('#done').waitFor();
    expect(await page.evaluate(`document.activeElement.id`)).toBe('h-done');
    const meetings = await meetingsOf(topic.uuid);
    expect(meetings.map((meeting) => [meeting.start, meeting.participant.name])).toEqual([[start, 'Kim Keys']]);
  });

  it('fits a 360-pixel phone without sideways scrolling', async () => {
    const topic = await createTopic(t.server, { name: 'A topic with a rather long name that has to wrap on a phone', places: ['offline', 'phone-call', 'zoom'], price: null });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`, { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await page.locator('#slots button[data-start]').first().waitFor();
    await shot(page, 'phone-01-calendar');
    expect(await page.evaluate(`document.documentElement.scrollWidth`)).toBeLessThanOrEqual(360);
    await chooseFirstSlot(page);
    await shot(page, 'phone-02-form');
    expect(await page.evaluate(`document.documentElement.scrollWidth`)).toBeLessThanOrEqual(360);
    // Touch targets: every day and time button is at least 44 px tall.
    const heights = (await page.evaluate(`[...document.querySelectorAll('button[data-date], button[data-start]')].map((b) => b.getBoundingClientRect().height)`)) as number[];
    expect(heights.length).toBeGreaterThan(0);
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(44);
  });

  it('a slot taken while the form is open: a clear message, the calendar refreshed, nothing booked twice', async () => {
    const topic = await createTopic(t.server, { name: 'Contested', places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
    const { start } = await chooseFirstSlot(page);
    await page.fill('input[name=name]', 'Slow Sam');
    await page.fill('input[name=email]', 'sam@example.com');
    // Someone else books the same slot through the API meanwhile.
    const other = await t.server.api('POST', '/schedule', {
      dates: [{ start, username: t.server.owner.username }],
      meetingTopic: topic.uuid,
      name: 'Fast Fay',
      email: 'fay@example.com',
      lang: 'en',
      place: 'offline',
      timezone: 'Europe/Warsaw',
    });
    expect(other.status).toBe(201);
    await page.click('#submit');
    await expect.poll(() => page.textContent('#alert')).toContain('just booked by someone else');
    expect(await page.getAttribute('#alert', 'role')).toBe('alert');
    // The refreshed calendar no longer offers the taken time.
    await expect.poll(() => page.locator(`#slots button[data-start="${start}"]`).count()).toBe(0);
    expect(await page.isHidden('#details')).toBe(true);
    await shot(page, 'taken-01-message');
    const meetings = await meetingsOf(topic.uuid);
    expect(meetings.map((meeting) => meeting.participant.name)).toEqual(['Fast Fay']);
  });

  it('a Zoom meeting whose host has no Zoom link yet stays bookable and, where the business can make rooms, says the link follows', async () => {
    const topic = await createTopic(t.server, { name: 'Video or office', places: ['zoom', 'offline'] });
    const label = (page: Page, place: string) => page.locator('label.choice', { has: page.locator(`input[value="${place}"]`) });
    const zoomLabelAfterChoosing = async () => {
      const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
      await chooseFirstSlot(page);
      expect(await label(page, 'offline').textContent()).not.toContain('follows');
      return (await label(page, 'zoom').textContent()) ?? '';
    };
    // Without a Zoom app, `zoom` is a label as it always was: nothing will follow, so nothing is promised.
    expect(await zoomLabelAfterChoosing()).not.toContain('follows');

    // The business has a Zoom app, so the host can connect and the link can follow.
    expect((await t.server.api('PATCH', '/account', { integrations: { zoom: { clientId: 'zoom-app', clientSecret: 'zoom-secret' } } })).status).toBe(200);
    expect(await zoomLabelAfterChoosing()).toContain('the link to join follows by e-mail');

    // A static link of the host's own makes Zoom ready: no note.
    expect((await t.server.api('PUT', `/users/${t.server.owner.userUuid}/place-details`, { zoom: 'https://zoom.us/j/5550001111' })).status).toBe(200);
    expect(await zoomLabelAfterChoosing()).not.toContain('follows');
    expect((await t.server.api('PUT', `/users/${t.server.owner.userUuid}/place-details`, {})).status).toBe(200);
    expect((await t.server.api('PATCH', '/account', { integrations: { zoom: null } })).status).toBe(200);
  });

  it('the host lists their public topics, not the private ones', async () => {
    const shown = await createTopic(t.server, { name: 'Listed topic' });
    await createTopic(t.server, { name: 'Hidden topic', public: false });
    const page = await t.open(`/book/${t.server.owner.username}`);
    const names = await page.locator('.topic-name').allTextContents();
    expect(names).toContain('Listed topic');
    expect(names).not.toContain('Hidden topic');
    await page.click(`a[href$="${shown.uuid}"]`);
    await page.locator('button[data-date]').first().waitFor();
    await shot(page, 'list-01-topics');
  });
});
