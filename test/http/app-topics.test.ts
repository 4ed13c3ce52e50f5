import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { type Browser, csrfOf, formValuesOf, signInToApp } from './app-browser.js';

const ALL_WEEK = Object.fromEntries(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'].map((day) => [day, [{ start: '09:00', end: '17:00' }]]));

/** The API's record of a topic without what changes on every save. */
function settingsOf(topic: Record<string, unknown>) {
  const { updatedAt: _updatedAt, ...rest } = topic;
  return rest;
}

/** The topic's uuid from the redirect after "Create". */
function createdUuid(location: unknown): string {
  return /\/app\/topics\/([0-9a-f-]{36})\?done=created$/.exec(String(location))![1]!;
}

for (const dialect of DIALECTS) {
  describe(`the topic form in the host's web app: every setting of the API's topic [${dialect}]`, () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
    });
    afterAll(async () => t.close());

    /** The fields of a complete form for a new individual topic; `extra` adds or replaces some. */
    const fullForm = (csrf: string, extra: Record<string, string | string[]> = {}) => ({
      csrf,
      op: 'save',
      name: 'Garden consultation',
      description: 'We walk the garden.\nBring photos.',
      durationMinutes: '60',
      places: ['offline', 'phone-call', 'zoom'],
      'placeDetails.offline': 'ul. Prosta 1, Warszawa',
      'placeDetails.phone-call': '+48 601 333 444',
      'placeDetails.zoom': '',
      phoneRequired: 'on',
      slotIntervalMinutes: '30',
      minimumNoticeMinutes: '1440',
      bookingWindowDays: '30',
      bufferBeforeMinutes: '10',
      bufferAfterMinutes: '15',
      cancellationNoticeMinutes: '720',
      seats: '3',
      dailyLimit: '4',
      weeklyLimit: '10',
      monthlyLimit: '',
      requiresApproval: 'on',
      approvalDeadlineHours: '48',
      'reminder.0.minutesBefore': '1440',
      'reminder.0.channel': 'email',
      'reminder.0.to': 'participant',
      'reminder.1.minutesBefore': '60',
      'reminder.1.channel': 'email',
      'reminder.1.to': 'host',
      'question.0.key': '',
      'question.0.label': 'Garden size',
      'question.0.type': 'select',
      'question.0.required': 'on',
      'question.0.options': 'Small\nLarge',
      'question.1.key': '',
      'question.1.label': 'Anything else?',
      'question.1.type': 'textarea',
      'question.1.options': '',
      price: '150,50',
      currency: 'PLN',
      'variant.0.uuid': '',
      'variant.0.name': 'With a plan',
      'variant.0.price': '250',
      public: 'on',
      ...extra,
    });

    it('edits the lengths to choose from, guests, number bounds and a conditional question, and reads them back unchanged', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signInToApp(t, acme.owner.email);
      const blank = await browser.get('/app/topics/new');
      expect(blank.body).toContain('Lengths to choose from (minutes)');
      expect(blank.body).toContain('The participant may bring guests');
      const csrf = csrfOf(blank.body);
      const form = fullForm(csrf, {
        durationMinutes: '30',
        durations: '15, 60',
        allowGuests: 'on',
        seats: '1',
        price: '',
        'variant.0.name': '',
        'variant.0.price': '',
        'question.1.label': 'How many trees?',
        'question.1.type': 'number',
        'question.1.min': '1',
        'question.1.max': '500',
        'question.1.showIfKey': '',
        'question.1.showIfEquals': '',
      });
      const created = await browser.post('/app/topics', form);
      expect(created.statusCode, created.body.slice(0, 2000)).toBe(303);
      const uuid = createdUuid(created.headers.location);
      const read = async () => (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
      expect(await read()).toMatchObject({
        durationMinutes: 30,
        durations: [15, 30, 60],
        allowGuests: true,
        form: [
          { key: 'q1', type: 'select', options: ['Small', 'Large'] },
          { key: 'q2', label: 'How many trees?', type: 'number', min: 1, max: 500 },
        ],
      });
      // Now that the first question is saved (key q1), the second may depend on it.
      const page = await browser.get(`/app/topics/${uuid}`);
      expect(page.body).toContain('<option value="q1">Garden size</option>');
      const conditional = await browser.post(`/app/topics/${uuid}`, {
        ...formValuesOf(page.body, 'class="topic-form"'),
        op: 'save',
        'question.1.showIfKey': 'q1',
        'question.1.showIfEquals': 'Large',
      });
      expect(conditional.statusCode).toBe(303);
      const topic = await read();
      expect(topic.form[1]).toMatchObject({ showIf: { key: 'q1', equals: 'Large' } });
      // Posting the page back as it is changes nothing.
      const again = await browser.get(`/app/topics/${uuid}`);
      expect((await browser.post(`/app/topics/${uuid}`, { ...formValuesOf(again.body, 'class="topic-form"'), op: 'save' })).statusCode).toBe(303);
      expect(settingsOf(await read())).toEqual(settingsOf(topic));
      // A value that is not one of the choices is refused beside its field.
      const refused = await browser.post(`/app/topics/${uuid}`, { ...formValuesOf(again.body, 'class="topic-form"'), op: 'save', 'question.1.showIfEquals': 'Huge' });
      expect(refused.statusCode).toBe(400);
      expect(refused.body).toContain('id="f-q1-showIfEquals-error">Enter an answer that question can have');
    });

    it('saves every group of settings as the API shows them, and saving the page unchanged changes nothing', async () => {
      const acme = await createTestAccount(t.ctx);
      const schedule = (
        await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${acme.owner.uuid}/schedules`, { name: 'Summer hours', timezone: 'Europe/Warsaw', weekly: ALL_WEEK, overrides: [] })
      ).json();
      const browser = await signInToApp(t, acme.owner.email);
      const blank = await browser.get('/app/topics/new');
      expect(blank.statusCode).toBe(200);
      // Each group is a fieldset with its legend; the host's own schedules are offered.
      for (const legend of ['About the topic', 'Where it happens', 'When it can be booked', 'Limits per host', 'Approval', 'Reminders', 'Questions for the participant', 'Price']) {
        expect(blank.body).toContain(`<legend>${legend}</legend>`);
      }
      expect(blank.body).toContain(`<option value="${schedule.uuid}">Summer hours</option>`);
      const csrf = csrfOf(blank.body);

      // "Add reminder" works without a script: the form comes back with an empty row, unsaved.
      const added = await browser.post('/app/topics', fullForm(csrf, { op: 'add-reminder' }));
      expect(added.statusCode).toBe(200);
      expect(added.body).toContain('name="reminder.2.minutesBefore" value=""');
      expect(added.body).toContain('value="ul. Prosta 1, Warszawa"');
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics).toEqual([]);

      // Saved with that empty third row: it is left out.
      const created = await browser.post('/app/topics', { ...formValuesOf(added.body, 'class="topic-form"'), op: 'save', schedule: schedule.uuid });
      expect(created.statusCode).toBe(303);
      const uuid = createdUuid(created.headers.location);
      const topic = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
      expect(topic).toMatchObject({
        name: 'Garden consultation',
        description: 'We walk the garden.\nBring photos.',
        durationMinutes: 60,
        places: ['offline', 'phone-call', 'zoom'],
        placeDetails: { offline: 'ul. Prosta 1, Warszawa', 'phone-call': '+48 601 333 444' },
        phoneRequired: true,
        slotIntervalMinutes: 30,
        minimumNoticeMinutes: 1440,
        bookingWindowDays: 30,
        bufferBeforeMinutes: 10,
        bufferAfterMinutes: 15,
        cancellationNoticeMinutes: 720,
        seats: 3,
        dailyLimit: 4,
        weeklyLimit: 10,
        monthlyLimit: null,
        requiresApproval: true,
        approvalDeadlineHours: 48,
        reminders: [
          { minutesBefore: 1440, channel: 'email', to: 'participant' },
          { minutesBefore: 60, channel: 'email', to: 'host' },
        ],
        form: [
          { key: 'q1', label: 'Garden size', type: 'select', required: true, options: ['Small', 'Large'] },
          { key: 'q2', label: 'Anything else?', type: 'textarea', required: false },
        ],
        price: { amount: 15050, currency: 'PLN' },
        priceVariants: [{ name: 'With a plan', price: { amount: 25000, currency: 'PLN' } }],
        schedule: schedule.uuid,
        public: true,
        team: null,
        hosts: [acme.owner.username],
      });

      // The page shows what the API has: posting it back as it is leaves the topic as it was
      // (question keys and the variant's uuid included).
      const page = await browser.get(String(created.headers.location));
      expect(page.body).toContain('The topic was created.');
      const saved = await browser.post(`/app/topics/${uuid}`, { ...formValuesOf(page.body, 'class="topic-form"'), op: 'save' });
      expect(saved.statusCode).toBe(303);
      expect(settingsOf((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json())).toEqual(settingsOf(topic));

      // Removing a reminder, the limits, the approval, the prices and a question; the default hours again.
      const edited = await browser.post(`/app/topics/${uuid}`, {
        ...formValuesOf(page.body, 'class="topic-form"'),
        op: 'remove-reminder:0',
      });
      expect(edited.statusCode).toBe(200);
      const values = formValuesOf(edited.body, 'class="topic-form"');
      expect(values['reminder.0.minutesBefore']).toBe('60');
      expect(values['reminder.1.minutesBefore']).toBeUndefined();
      const { requiresApproval: _a, 'question.1.key': _k, 'question.1.label': _l, 'question.1.type': _y, 'question.1.options': _o, ...rest } = values;
      const second = await browser.post(`/app/topics/${uuid}`, {
        ...rest,
        op: 'save',
        dailyLimit: '',
        weeklyLimit: '',
        price: '',
        'variant.0.name': '',
        'variant.0.price': '',
        schedule: '',
      });
      expect(second.statusCode).toBe(303);
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json()).toMatchObject({
        reminders: [{ minutesBefore: 60, channel: 'email', to: 'host' }],
        requiresApproval: false,
        dailyLimit: null,
        weeklyLimit: null,
        price: null,
        priceVariants: [],
        schedule: null,
        form: [topic.form[0]],
      });
    });

    it('shows each refusal next to its field in plain words, in English and in Polish, and the rest at the top', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signInToApp(t, acme.owner.email);
      const csrf = csrfOf((await browser.get('/app/topics/new')).body);
      const bad = fullForm(csrf, {
        durationMinutes: '3',
        'placeDetails.zoom': 'http://zoom.example/j/1',
        // The empty middle row is left out: the use case's second reminder is the form's third row.
        'reminder.1.minutesBefore': '',
        'reminder.2.minutesBefore': '30',
        'reminder.2.channel': 'sms',
        'reminder.2.to': 'participant',
        'question.1.options': 'Yes\nNo',
        currency: 'PLN',
      });
      for (const [lang, words] of [
        [
          'en',
          {
            duration: 'Enter a whole number from 5 to 720.',
            zoom: 'Enter the room’s link, starting with https://',
            sms: 'SMS reminders are not available',
            choices: 'Choices are only for',
          },
        ],
        [
          'pl',
          {
            duration: 'Wpisz liczbę całkowitą od 5 do 720.',
            zoom: 'Wpisz link do pokoju zaczynający się od https://',
            sms: 'Przypomnienia SMS nie są dostępne',
            choices: 'Odpowiedzi do wyboru są tylko dla',
          },
        ],
      ] as const) {
        const response = await browser.post('/app/topics', bad, { 'accept-language': lang });
        expect(response.statusCode).toBe(400);
        const page = response.body;
        expect(page).toContain(`<p class="field-error" id="f-durationMinutes-error">${words.duration}</p>`);
        expect(page).toMatch(/id="f-durationMinutes" name="durationMinutes" value="3"[^>]*aria-describedby="f-durationMinutes-error" aria-invalid="true"/);
        expect(page).toContain(`<p class="field-error" id="f-pd-zoom-error">${words.zoom}</p>`);
        expect(page).toMatch(new RegExp(`<p class="field-error" id="f-r2-channel-error">${words.sms}`));
        expect(page).toMatch(new RegExp(`<p class="field-error" id="f-q1-options-error">${words.choices}`));
        // The summary links to each field; no JSON Pointer, no English rule on the Polish page.
        expect(page).toContain('<a href="#f-durationMinutes">');
        expect(page).not.toContain('/durationMinutes:');
        expect(page).not.toContain('must be');
        // The form comes back as sent.
        expect(page).toContain('value="http://zoom.example/j/1"');
      }
      expect((await call(t.app, acme.apiKey, 'GET', '/api/v1/meeting-topics')).json().meetingTopics).toEqual([]);

      // A field the form does not have: at the top, in plain words.
      const unknown = await browser.post('/app/topics', { ...fullForm(csrf), colour: 'red' }, { 'accept-language': 'pl' });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.body).toContain('<li>Formularz wysłał pole, którego nie ma (colour). Odśwież stronę i spróbuj ponownie.</li>');
    });

    it('warns about an offered place with no details and nothing to make a room with; the warning goes once it is set', async () => {
      const acme = await createTestAccount(t.ctx);
      const browser = await signInToApp(t, acme.owner.email);
      const csrf = csrfOf((await browser.get('/app/topics/new')).body);
      const created = await browser.post('/app/topics', fullForm(csrf, { 'placeDetails.offline': '', 'placeDetails.phone-call': '', phoneRequired: [], 'placeDetails.zoom': '' }));
      expect(created.statusCode).toBe(303);
      const uuid = createdUuid(created.headers.location);
      const page = (await browser.get(`/app/topics/${uuid}`)).body;
      expect(page).toContain('In person: there is no address.');
      expect(page).toContain('Phone call: there is no number to call and the participant need not give theirs.');
      expect(page).toContain('Zoom: you have no connection and no room link, so meetings get no link.');
      const polish = (await browser.get(`/app/topics/${uuid}`, { 'accept-language': 'pl' })).body;
      expect(polish).toContain('Spotkanie osobiste: brak adresu.');
      expect(polish).toContain('Zoom: nie masz połączenia ani linku do pokoju');
      // The API's rule stays: the topic was saved and is bookable at every place.
      expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json().places).toEqual(['offline', 'phone-call', 'zoom']);

      const fixed = await browser.post(`/app/topics/${uuid}`, {
        ...formValuesOf(page, 'class="topic-form"'),
        op: 'save',
        'placeDetails.offline': 'ul. Prosta 1',
        phoneRequired: 'on',
        'placeDetails.zoom': 'https://zoom.us/j/123',
      });
      expect(fixed.statusCode).toBe(303);
      expect((await browser.get(`/app/topics/${uuid}`)).body).not.toContain('id="place-warnings"');
    });

    describe('team topics', () => {
      async function teamWithMembers() {
        const acme = await createTestAccount(t.ctx, { places: ['offline'] });
        const add = async (firstName: string) =>
          (
            await call(t.app, acme.apiKey, 'POST', `/api/v1/teams/${acme.team.uuid}/users`, {
              firstName,
              lastName: 'Member',
              email: `${firstName.toLowerCase()}.${acme.account.uuid.slice(-8)}@acme.test`,
            })
          ).json() as { uuid: string; username: string; email: string };
        const anna = await add('Anna');
        const jan = await add('Jan');
        return { acme, anna, jan };
      }

      it('a team admin creates a team topic and edits its hosts, assignment and weights', async () => {
        const { acme, anna, jan } = await teamWithMembers();
        const annaHours = (
          await call(t.app, acme.apiKey, 'POST', `/api/v1/users/${anna.uuid}/schedules`, { name: 'Mornings', timezone: 'Europe/Warsaw', weekly: ALL_WEEK, overrides: [] })
        ).json();
        const admin = await signInToApp(t, acme.owner.email);
        expect((await admin.get('/app/topics')).body).toContain(`href="/app/topics/new?team=${acme.team.uuid}"`);
        const form = await admin.get(`/app/topics/new?team=${acme.team.uuid}`);
        expect(form.statusCode).toBe(200);
        expect(form.body).toContain('<legend>Hosts</legend>');
        const values = formValuesOf(form.body, 'class="topic-form"');
        expect(values.allTeamMembers).toBe('on');
        const created = await admin.post('/app/topics', {
          ...values,
          op: 'save',
          name: 'Team intro',
          allTeamMembers: [],
          hosts: [anna.username, jan.username],
          assignment: 'round-robin',
          [`weight.${anna.username}`]: '3',
          [`hostSchedule.${anna.username}`]: annaHours.uuid,
        });
        expect(created.statusCode).toBe(303);
        const uuid = createdUuid(created.headers.location);
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json()).toMatchObject({
          team: acme.team.uuid,
          hosts: [anna.username, jan.username],
          allTeamMembers: false,
          assignment: 'round-robin',
          hostWeights: { [anna.username]: 3 },
          hostSchedules: { [anna.username]: annaHours.uuid },
        });

        // Everyone, collective: a collective topic with seats is refused next to the seats, in words.
        const page = await admin.get(`/app/topics/${uuid}`);
        const again = formValuesOf(page.body, 'class="topic-form"');
        const refused = await admin.post(`/app/topics/${uuid}`, { ...again, op: 'save', allTeamMembers: 'on', assignment: 'collective', seats: '2' });
        expect(refused.statusCode).toBe(400);
        expect(refused.body).toContain('<p class="field-error" id="f-seats-error">A topic with all hosts together has one participant per time: set seats to 1.</p>');
        const saved = await admin.post(`/app/topics/${uuid}`, { ...again, op: 'save', allTeamMembers: 'on', assignment: 'collective', [`weight.${anna.username}`]: '' });
        expect(saved.statusCode).toBe(303);
        const after = (await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
        expect(after).toMatchObject({ allTeamMembers: true, assignment: 'collective', hostWeights: {} });
        expect([...after.hosts].sort()).toEqual([acme.owner.username, anna.username, jan.username].sort());
      });

      it('a plain member sees a team topic but cannot change it, nor start one for the team', async () => {
        const { acme, anna } = await teamWithMembers();
        const topic = (
          await call(t.app, acme.apiKey, 'POST', '/api/v1/meeting-topics', { name: 'Team intro', durationMinutes: 30, places: ['offline'], team: acme.team.uuid })
        ).json();
        const member: Browser = await signInToApp(t, anna.email);
        const page = await member.get(`/app/topics/${topic.uuid}`);
        expect(page.statusCode).toBe(200);
        expect(page.body).toContain('Only an admin of the team can change this topic.');
        expect(page.body).toContain('<fieldset class="locked" disabled>');
        const csrf = csrfOf((await member.get('/app/topics')).body);
        const posted = await member.post(`/app/topics/${topic.uuid}`, { ...fullForm(csrf, { places: 'offline', name: 'Hijacked' }) });
        expect(posted.statusCode).toBe(403);
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics/${topic.uuid}`)).json().name).toBe('Team intro');
        expect((await member.get(`/app/topics/new?team=${acme.team.uuid}`)).statusCode).toBe(403);
        expect((await member.post('/app/topics', fullForm(csrf, { places: 'offline', team: acme.team.uuid }))).statusCode).toBe(403);
        expect((await call(t.app, acme.apiKey, 'GET', `/api/v1/meeting-topics?team=${acme.team.uuid}`)).json().meetingTopics).toHaveLength(1);
      });
    });
  });
}
