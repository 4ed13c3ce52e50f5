import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { chooseFirstSlot, createTopic, seriousViolations, useServerAndBrowser } from './harness.js';

/** A topic that requires approval, booked in a real browser: the page says the request awaits the host. */
describe.runIf(HAS_CHROMIUM)('booking a request in a browser', () => {
  const t = useServerAndBrowser();

  it('says the request awaits the host, and the meeting is pending approval', async () => {
    const topic = await createTopic(t.server, { name: 'Consultation', places: ['offline'], requiresApproval: true });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}?lang=en`, { locale: 'pl-PL' });
    const { start } = await chooseFirstSlot(page);
    await page.fill('input[name=name]', 'Jan Kowalski');
    await page.fill('input[name=email]', 'jan@example.com');
    await page.click('#submit');
    await page.locator('#done').waitFor();
    expect(await page.textContent('#h-done')).toBe('Your request awaits the host');
    expect(await page.textContent('#done-text')).toContain('jan@example.com');
    expect(await seriousViolations(page)).toEqual([]);
    const meetings = (await t.server.api<{ meetings: { meetingTopic: string; start: string; status: string }[] }>('GET', '/meetings?limit=200')).body.meetings;
    expect(meetings.filter((meeting) => meeting.meetingTopic === topic.uuid).map((meeting) => [meeting.start, meeting.status])).toEqual([[start, 'pending_approval']]);
    await page.context().close();
  });
});
