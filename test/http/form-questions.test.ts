import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RenderedMessage } from '../../src/mail/message.js';
import type { CreatedAccount } from '../../src/scheduling/account/create-account.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, expectProblem, runJobsCapturingMail, type TestApp } from '../helpers.js';

type Slot = { start: string; username: string };

const FORM = [
  { key: 'company', label: 'Company', required: true },
  { key: 'agenda', label: 'What shall we discuss?', type: 'textarea' },
  { key: 'size', label: 'Team size', type: 'select', options: ['1-9', '10-50', '51+'], required: true },
  { key: 'consent', label: 'I accept the terms', type: 'checkbox', required: true },
  { key: 'newsletter', label: 'Send me news', type: 'checkbox' },
];

for (const dialect of DIALECTS) {
  describe(`form questions [${dialect}]`, () => {
    let t: TestApp;
    let acme: CreatedAccount;
    let topic: { uuid: string; form: unknown[] };
    const sent: RenderedMessage[] = [];

    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      acme = await createTestAccount(t.ctx, { timezone: 'Europe/Warsaw', places: ['zoom'] });
      const created = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Discovery', durationMinutes: 30, places: ['zoom'], form: FORM, public: true });
      expect(created.statusCode).toBe(201);
      topic = created.json();
    });
    afterAll(async () => t.close());

    const slots = async (topicUuid = topic.uuid) => {
      const body = (
        await call(t.app, null, 'POST', '/api/v1/calculate-schedule', { username: acme.owner.username, meetingTopic: topicUuid, timezone: 'Europe/Warsaw', offset: 0 })
      ).json();
      return (body.days as { slots: Slot[] }[]).flatMap((day) => day.slots);
    };
    const book = async (slot: Slot, form: unknown, email = 'jan@example.com', topicUuid = topic.uuid) =>
      call(t.app, acme.apiKey, 'POST', '/api/v1/schedule', {
        dates: [slot],
        email,
        lang: 'en',
        name: 'Jan Kowalski',
        place: 'zoom',
        meetingTopic: topicUuid,
        timezone: 'Europe/Warsaw',
        form,
      });
    const meetingsOf = async (email: string) =>
      ((await call(t.app, acme.apiKey, 'GET', '/api/v1/meetings?limit=200')).json().meetings as { participant: { email: string } }[]).filter(
        (meeting) => meeting.participant.email === email,
      );
    const valid = { company: 'Acme', size: '10-50', consent: true };

    it('a topic’s questions have types (text by default) and a select lists its options', async () => {
      expect(topic.form).toEqual([
        { key: 'company', label: 'Company', required: true, type: 'text' },
        { key: 'agenda', label: 'What shall we discuss?', required: false, type: 'textarea' },
        { key: 'size', label: 'Team size', required: true, type: 'select', options: ['1-9', '10-50', '51+'] },
        { key: 'consent', label: 'I accept the terms', required: true, type: 'checkbox' },
        { key: 'newsletter', label: 'Send me news', required: false, type: 'checkbox' },
      ]);
      const create = (form: unknown) => call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Bad', durationMinutes: 30, form });
      const paths = async (form: unknown) => (expectProblem(await create(form), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path);
      expect(await paths([{ key: 'size', label: 'Size', type: 'select' }])).toEqual(['/form/0/options']);
      expect(await paths([{ key: 'size', label: 'Size', type: 'select', options: ['a', 'a'] }])).toEqual(['/form/0/options/1']);
      expect(await paths([{ key: 'size', label: 'Size', type: 'text', options: ['a'] }])).toEqual(['/form/0/options']);
      expect(await paths([{ key: 'size', label: 'Size', type: 'radio' }])).toEqual(['/form/0/type']);
    });

    it('refuses unknown answer keys and answers that do not fit their type, every path at once, and books nothing', async () => {
      const slot = (await slots())[0]!;
      const email = 'refused@example.com';
      const paths = async (form: unknown) => (expectProblem(await book(slot, form, email), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path).sort();
      expect(await paths({ ...valid, compnay: 'typo' })).toEqual(['/form/compnay']);
      expect(await paths({ company: 'Acme\nBcc: x@evil.test', size: 'huge', consent: 'yes', newsletter: 1 })).toEqual([
        '/form/company',
        '/form/consent',
        '/form/newsletter',
        '/form/size',
      ]);
      expect(await paths({ company: 'Acme', size: '1-9', consent: false })).toEqual(['/form/consent']);
      expect(await paths({})).toEqual(['/form/company', '/form/consent', '/form/size']);
      expect(await paths({ ...valid, agenda: ['a list'] })).toEqual(['/form/agenda']);
      expect(await meetingsOf(email)).toEqual([]);
      expect((await slots()).map((free) => free.start)).toContain(slot.start);
    });

    it('books with valid answers, stores them trimmed, and the host’s message lists them with their labels, escaped', async () => {
      const slot = (await slots())[1]!;
      const response = await book(slot, { company: ' <b>Acme</b> & Co ', size: '51+', consent: true, newsletter: false, agenda: 'Pricing\nRoll-out' }, 'ok@example.com');
      expect(response.statusCode).toBe(201);
      expect(response.json().meetings[0].form).toEqual({ company: '<b>Acme</b> & Co', agenda: 'Pricing\nRoll-out', size: '51+', consent: true, newsletter: false });

      sent.length = 0;
      await runJobsCapturingMail(t.ctx, sent);
      const toHost = sent.filter((message) => message.to.email === acme.owner.email && message.ics.content.includes(response.json().meetings[0].uuid));
      expect(toHost).toHaveLength(1);
      const host = toHost[0]!;
      expect(host.text).toContain('Answers to the booking questions:');
      expect(host.text).toContain('Company: <b>Acme</b> & Co');
      expect(host.text).toContain('What shall we discuss? Pricing\n  Roll-out');
      expect(host.text).toContain('Team size: 51+');
      expect(host.text).toContain('I accept the terms: Yes');
      expect(host.text).toContain('Send me news: No');
      expect(host.html).toMatch(/>Company<\/th><td[^>]*>&lt;b&gt;Acme&lt;\/b&gt; &amp; Co<\/td>/);
      expect(host.html).not.toContain('<b>Acme</b>');
      // The participant's own message does not repeat their answers.
      const toParticipant = sent.find((message) => message.to.email === 'ok@example.com')!;
      expect(toParticipant.text).not.toContain('Answers to the booking questions');
    });

    it('keeps topics whose questions were stored without a type working as text questions', async () => {
      const old = (await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Old', durationMinutes: 30, places: ['zoom'] })).json();
      await t.ctx.db
        .updateTable('meeting_topics')
        .set({ form: JSON.stringify([{ key: 'company', label: 'Company', required: true }]) })
        .where('id', '=', old.uuid)
        .execute();
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${old.uuid}`)).json().form).toEqual([
        { key: 'company', label: 'Company', required: true, type: 'text' },
      ]);
      const slot = (await slots(old.uuid))[2]!;
      expectProblem(await book(slot, { company: 42 }, 'old@example.com', old.uuid), 400, 'VALIDATION_FAILED');
      expect((await book(slot, { company: 'Acme' }, 'old@example.com', old.uuid)).statusCode).toBe(201);
    });

    it('takes e-mail, phone, number, multiselect and date answers, and a conditional question only when it applies', async () => {
      const rich = await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Rich',
        durationMinutes: 30,
        places: ['zoom'],
        form: [
          { key: 'kind', label: 'Who books?', type: 'select', options: ['person', 'company'], required: true },
          { key: 'vat', label: 'VAT number', required: true, showIf: { key: 'kind', equals: 'company' } },
          { key: 'billing', label: 'Billing e-mail', type: 'email' },
          { key: 'mobile', label: 'Mobile', type: 'phone' },
          { key: 'people', label: 'People', type: 'number', min: 1, max: 50 },
          { key: 'topics', label: 'Topics', type: 'multiselect', options: ['pricing', 'security'] },
          { key: 'from', label: 'Start date', type: 'date' },
        ],
      });
      expect(rich.statusCode).toBe(201);
      expect(rich.json().form[1]).toEqual({ key: 'vat', label: 'VAT number', required: true, type: 'text', showIf: { key: 'kind', equals: 'company' } });
      expect(rich.json().form[4]).toEqual({ key: 'people', label: 'People', required: false, type: 'number', min: 1, max: 50 });
      const create = (form: unknown) => call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Bad', durationMinutes: 30, form });
      const topicPaths = async (form: unknown) => (expectProblem(await create(form), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path);
      expect(await topicPaths([{ key: 'vat', label: 'VAT', showIf: { key: 'kind', equals: 'company' } }])).toEqual(['/form/0/showIf/key']);

      const uuid = rich.json().uuid as string;
      const [first, second] = await slots(uuid);
      const email = 'rich@example.com';
      const paths = async (form: unknown) => (expectProblem(await book(first!, form, email, uuid), 400, 'VALIDATION_FAILED').errors ?? []).map((error) => error.path).sort();
      expect(await paths({ kind: 'person', vat: 'PL123' })).toEqual(['/form/vat']);
      expect(await paths({ kind: 'company' })).toEqual(['/form/vat']);
      expect(await paths({ kind: 'person', billing: 'nope', mobile: '601234567', people: 51, topics: ['hiring'], from: '2027-13-01' })).toEqual([
        '/form/billing',
        '/form/from',
        '/form/mobile',
        '/form/people',
        '/form/topics',
      ]);
      expect(await meetingsOf(email)).toEqual([]);

      const booked = await book(
        first!,
        { kind: 'company', vat: 'PL123', billing: 'ap@acme.test', mobile: '+48601234567', people: '7', topics: ['security', 'pricing'], from: '2027-02-01' },
        email,
        uuid,
      );
      expect(booked.statusCode).toBe(201);
      expect(booked.json().meetings[0].form).toEqual({
        kind: 'company',
        vat: 'PL123',
        billing: 'ap@acme.test',
        mobile: '+48601234567',
        people: 7,
        topics: ['pricing', 'security'],
        from: '2027-02-01',
      });
      // What a page without its script posts for the question it could not hide: blank, so accepted.
      expect((await book(second!, { kind: 'person', vat: '' }, 'plain@example.com', uuid)).statusCode).toBe(201);
    });

    it('the booking page asks each question as its type: a line, a text area, a choice, a checkbox', async () => {
      const page = await t.app.inject({ method: 'GET', url: `/book/${acme.owner.username}/${topic.uuid}?lang=en`, headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toMatch(/<input id="f-form-company" name="form\.company" type="text"[^>]*required/);
      expect(page.body).toMatch(/<textarea id="f-form-agenda" name="form\.agenda"/);
      expect(page.body).toMatch(/<select id="f-form-size" name="form\.size" required[^>]*><option value="">—<\/option><option value="1-9">1-9<\/option>/);
      expect(page.body).toMatch(/<input id="f-form-consent" name="form\.consent" type="checkbox" value="true" required/);
      expect(page.body).toMatch(/<input id="f-form-newsletter" name="form\.newsletter" type="checkbox" value="true"(?! required)/);
    });
  });
}
