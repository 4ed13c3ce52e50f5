import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM } from '../helpers.js';
import { createTopic, seriousViolations, shot, useServerAndBrowser } from './harness.js';

type Slot = { start: string; username: string; seatsLeft?: number };

/**
 * A group topic (seats > 1) on the booking page: each time says how many seats are left,
 * as part of the button's accessible name; a one-seat topic's times stay bare.
 */
describe.runIf(HAS_CHROMIUM)('seats left on the booking page in a browser', () => {
  const t = useServerAndBrowser();

  /** The day the page opens on (its first free day) and that day's slots as the API offers them. */
  async function firstDay(page: Page, topicUuid: string): Promise<{ date: string; slots: Slot[] }> {
    await page.locator('#slots button[data-start]').first().waitFor();
    const date = (await page.getAttribute('#days button[aria-pressed=true]', 'data-date'))!;
    const [year, month] = date.split('-').map(Number);
    const response = await fetch(`${t.server.url}/api/v1/calculate-schedule`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: t.server.owner.username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset: 0, month, year }),
    });
    expect(response.status).toBe(200);
    const days = ((await response.json()) as { days: { date: string; slots: Slot[] }[] }).days;
    return { date, slots: days.find((day) => day.date === date)!.slots };
  }

  async function book(topicUuid: string, start: string, who: string): Promise<void> {
    const response = await t.server.api('POST', '/schedule', {
      dates: [{ start, username: t.server.owner.username }],
      email: `${who}@example.com`,
      lang: 'en',
      name: who,
      place: 'offline',
      meetingTopic: topicUuid,
      timezone: 'Europe/Warsaw',
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  }

  /** The accessible name Chromium computes for the element (DevTools protocol), not Playwright's own. */
  async function chromiumName(page: Page, selector: string): Promise<string> {
    const session = await page.context().newCDPSession(page);
    const { root } = (await session.send('DOM.getDocument')) as { root: { nodeId: number } };
    const { nodeId } = (await session.send('DOM.querySelector', { nodeId: root.nodeId, selector })) as { nodeId: number };
    const { nodes } = (await session.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false })) as { nodes: { name?: { value: string } }[] };
    await session.detach();
    return nodes[0]?.name?.value ?? '';
  }

  const timeLabel = (start: string) => new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'Europe/Warsaw' }).format(new Date(start));

  /** A 3-seat topic whose page opens on a day with three times: 1 seat taken at the first, 2 at the second, none at the third. */
  async function seatedTopic(): Promise<{ path: string; one: Slot; two: Slot; untouched: Slot }> {
    const topic = await createTopic(t.server, { name: 'Workshop', places: ['offline'], seats: 3 });
    const path = `/book/${t.server.owner.username}/${topic.uuid}`;
    const { slots } = await firstDay(await t.open(path), topic.uuid);
    expect(slots.length).toBeGreaterThanOrEqual(3);
    const [one, two, untouched] = slots as [Slot, Slot, Slot];
    await book(topic.uuid, one.start, 'ann');
    await book(topic.uuid, two.start, 'bob');
    await book(topic.uuid, two.start, 'cyd');
    return { path, one, two, untouched };
  }

  // A browser, two page loads and axe: over the default 30 s on a loaded machine.
  it('each time of a 3-seat topic says the seats left, shown and in its accessible name', { timeout: 90_000 }, async () => {
    const { path, one, two, untouched } = await seatedTopic();
    const page = await t.open(path);
    await page.locator(`#slots button[data-start="${one.start}"]`).waitFor();
    expect(await page.getByRole('button', { name: `${timeLabel(one.start)} 2 seats left`, exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: `${timeLabel(two.start)} 1 seat left`, exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: `${timeLabel(untouched.start)} 3 seats left`, exact: true }).count()).toBe(1);
    // Chromium's own accessibility tree names it the same (what a screen reader is given).
    expect(await chromiumName(page, `#slots button[data-start="${one.start}"]`)).toBe(`${timeLabel(one.start)} 2 seats left`);
    // Shown, not only read out.
    expect(await page.locator(`#slots button[data-start="${one.start}"] .seats`).isVisible()).toBe(true);
    await shot(page, 'seats-01-times');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('the Polish page says "Wolne miejsca: N" under each time', { timeout: 90_000 }, async () => {
    const { path, one, two } = await seatedTopic();
    const page = await t.open(`${path}?lang=pl`, { locale: 'pl-PL' });
    await page.locator(`#slots button[data-start="${one.start}"]`).waitFor();
    const polishTime = new Intl.DateTimeFormat('pl-PL', { timeStyle: 'short', timeZone: 'Europe/Warsaw' }).format(new Date(one.start));
    expect(await page.getByRole('button', { name: `${polishTime} Wolne miejsca: 2`, exact: true }).count()).toBe(1);
    expect(await page.textContent(`#slots button[data-start="${two.start}"] .seats`)).toBe('Wolne miejsca: 1');
    await shot(page, 'seats-02-times-pl');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a one-seat topic shows bare times, as before', async () => {
    const topic = await createTopic(t.server, { name: 'One to one', places: ['offline'] });
    const page = await t.open(`/book/${t.server.owner.username}/${topic.uuid}`);
    const { slots } = await firstDay(page, topic.uuid);
    const start = slots[0]!.start;
    expect(await page.getByRole('button', { name: timeLabel(start), exact: true }).count()).toBe(1);
    expect(await page.locator('#slots .seats').count()).toBe(0);
    expect(await page.textContent(`#slots button[data-start="${start}"]`)).toBe(timeLabel(start));
  });
});
