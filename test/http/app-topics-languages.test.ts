import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lang } from '../../src/domain/lang.js';
import { DIALECTS, call, createClock, createTestAccount, createTestApp, type TestApp } from '../helpers.js';
import { englishLeaks, OTHER_LANGS, visibleText } from '../i18n/leaks.js';
import { type Browser, formValuesOf, signInToApp } from './app-browser.js';

/**
 * The topic pages of /app (the list, the form new and edited, the form refused) in each
 * language other than English, and the topic's own words translated through the form.
 * Test data holds no English words: Acme, Olga Nowak, "Konsultacja".
 */

/** The refusals of a form with a 3-minute meeting and an http:// room link, as each language says them. */
const REFUSALS: Record<Exclude<Lang, 'en'>, { duration: string; zoom: string; fix: string }> = {
  pl: { duration: 'Wpisz liczbę całkowitą od 5 do 720.', zoom: 'Wpisz link do pokoju zaczynający się od https://', fix: 'Popraw zaznaczone pola i zapisz ponownie:' },
  de: {
    duration: 'Geben Sie eine ganze Zahl von 5 bis 720 ein.',
    zoom: 'Geben Sie den Link zum Raum ein, beginnend mit https://',
    fix: 'Bitte korrigieren Sie die markierten Felder und speichern Sie erneut:',
  },
  uk: { duration: 'Введіть ціле число від 5 до 720.', zoom: 'Введіть посилання на кімнату, що починається з https://', fix: 'Виправте позначені поля та збережіть ще раз:' },
  es: {
    duration: 'Introduzca un número entero de 5 a 720.',
    zoom: 'Introduzca el enlace de la sala, que empiece por https://',
    fix: 'Corrija los campos marcados y vuelva a guardar:',
  },
  fr: {
    duration: 'Saisissez un nombre entier de 5 à 720.',
    zoom: 'Saisissez le lien de la salle, commençant par https://',
    fix: 'Veuillez corriger les champs signalés et enregistrer à nouveau :',
  },
};

/** The "Translations" group's legend as each page language names it, and German there. */
const TRANSLATIONS_GROUP: Record<Lang, { legend: string; german: string | null }> = {
  en: { legend: 'Translations', german: 'German' },
  pl: { legend: 'Tłumaczenia', german: 'Niemiecki' },
  de: { legend: 'Übersetzungen', german: null },
  uk: { legend: 'Переклади', german: 'Німецька' },
  es: { legend: 'Traducciones', german: 'Alemán' },
  fr: { legend: 'Traductions', german: 'Allemand' },
};

/** The page's words: the embed snippet (HTML a member pastes into their own site, `data-termin-booking`…) is code, not words. */
const wordsOf = (page: string) => visibleText(page.replace(/<textarea id="embed-code"[\s\S]*?<\/textarea>/, ''));

for (const dialect of DIALECTS) {
  describe(`the topic pages of /app in every language [${dialect}]`, () => {
    let t: TestApp;
    let browser: Browser;
    let apiKey: string;
    let username: string;
    let uuid: string;
    beforeAll(async () => {
      t = await createTestApp(dialect, createClock('2027-01-04T06:00:00.000Z'));
      const acme = await createTestAccount(t.ctx, { name: 'Acme', ownerFirstName: 'Olga', ownerLastName: 'Nowak' });
      apiKey = acme.apiKey;
      username = acme.owner.username;
      browser = await signInToApp(t, acme.owner.email);
      const created = await call(t.app, apiKey, 'POST', '/api/v1/meeting-topics', {
        name: 'Konsultacja',
        description: 'Rozmowa',
        durationMinutes: 30,
        public: true,
        places: ['offline', 'zoom'],
        placeDetails: { offline: 'ul. Prosta 1, Warszawa' },
        form: [{ key: 'garden', label: 'Ogród', required: false, type: 'select', options: ['Mały', 'Duży'] }],
      });
      expect(created.statusCode, created.body).toBe(201);
      uuid = created.json().uuid;
    });
    afterAll(async () => t.close());

    const page = async (path: string, lang: Lang) => {
      const response = await browser.get(path, { 'accept-language': lang });
      expect(response.statusCode, `${path} in ${lang}`).toBe(200);
      expect(response.body).toContain(`<html lang="${lang}"`);
      return response.body;
    };

    it.each(OTHER_LANGS)('%s: the topics list, a new topic’s form and a topic’s form show no English', async (lang) => {
      const list = await page('/app/topics', lang);
      expect(list).toContain('Konsultacja');
      expect(englishLeaks(visibleText(list), lang)).toEqual([]);

      const blank = await page('/app/topics/new', lang);
      expect(englishLeaks(visibleText(blank), lang)).toEqual([]);

      const edit = await page(`/app/topics/${uuid}`, lang);
      expect(edit).toContain('value="Konsultacja"');
      expect(edit).toContain('id="embed-code"');
      // Zoom is offered but not connected and has no room link: the page warns, in the language.
      expect(edit).toContain('id="place-warnings"');
      expect(englishLeaks(wordsOf(edit), lang)).toEqual([]);
      // The translations group offers every language but the page's own, each named in the page's language.
      const group = TRANSLATIONS_GROUP[lang];
      expect(edit).toContain(`<legend>${group.legend}</legend>`);
      expect(edit).not.toContain(`name="translation.${lang}.name"`);
      if (group.german) expect(edit).toContain(`<legend lang="de">${group.german}</legend>`);
    });

    it.each(OTHER_LANGS)('%s: a refused form says what to fix in that language, next to each field', async (lang) => {
      const blank = await page('/app/topics/new', lang);
      const response = await browser.post(
        '/app/topics',
        {
          ...formValuesOf(blank, 'class="topic-form"'),
          op: 'save',
          name: 'Konsultacja',
          durationMinutes: '3',
          places: ['offline', 'zoom'],
          'placeDetails.zoom': 'http://zoom.example/j/1',
        },
        { 'accept-language': lang },
      );
      expect(response.statusCode).toBe(400);
      const words = REFUSALS[lang as Exclude<Lang, 'en'>];
      expect(response.body).toContain(`<p class="field-error" id="f-durationMinutes-error">${words.duration}</p>`);
      expect(response.body).toContain(`<p class="field-error" id="f-pd-zoom-error">${words.zoom}</p>`);
      expect(response.body).toContain(`<p>${words.fix}</p>`);
      expect(englishLeaks(visibleText(response.body), lang)).toEqual([]);
    });

    it('saves the topic’s German words through the form; the booking page in German shows them, other languages the topic’s own', async () => {
      // A translation made through the API that the form cannot show (the choices) must survive the form.
      const patched = await call(t.app, apiKey, 'PATCH', `/api/v1/meeting-topics/${uuid}`, { translations: { de: { form: { garden: { options: ['Klein', 'Groß'] } } } } });
      expect(patched.statusCode, patched.body).toBe(200);

      const edit = await page(`/app/topics/${uuid}`, 'pl');
      const saved = await browser.post(
        `/app/topics/${uuid}`,
        {
          ...formValuesOf(edit, 'class="topic-form"'),
          op: 'save',
          'translation.de.name': 'Gartenberatung',
          'translation.de.description': 'Ein Gespräch im Garten.',
          'translation.de.confirmationMessage': 'Bringen Sie Fotos mit.',
          'translation.de.label.garden': 'Garten',
          'translation.fr.name': 'Consultation',
        },
        { 'accept-language': 'pl' },
      );
      expect(saved.statusCode, saved.body.slice(0, 3000)).toBe(303);
      const topic = (await call(t.app, apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
      expect(topic.translations).toEqual({
        de: {
          name: 'Gartenberatung',
          description: 'Ein Gespräch im Garten.',
          confirmationMessage: 'Bringen Sie Fotos mit.',
          form: { garden: { label: 'Garten', options: ['Klein', 'Groß'] } },
        },
        fr: { name: 'Consultation' },
      });
      expect(topic.name).toBe('Konsultacja');

      // The form shows what was saved, in the fields of each language.
      const again = await page(`/app/topics/${uuid}`, 'pl');
      expect(again).toMatch(/id="f-tr-de-name" name="translation\.de\.name" value="Gartenberatung" lang="de"/);
      expect(again).toMatch(/<textarea id="f-tr-de-confirmationMessage" name="translation\.de\.confirmationMessage"[^>]*>Bringen Sie Fotos mit\.<\/textarea>/);

      const booking = async (lang: string) => {
        const response = await t.app.inject({ method: 'GET', url: `/book/${username}/${uuid}?lang=${lang}`, headers: { accept: 'text/html' } });
        expect(response.statusCode).toBe(200);
        return response.body;
      };
      const german = await booking('de');
      expect(german).toContain('<html lang="de"');
      expect(german).toContain('Gartenberatung');
      expect(german).toContain('Ein Gespräch im Garten.');
      expect(german).toContain('Garten');
      expect(german).toContain('Groß');
      expect(german).not.toContain('Konsultacja');
      // Spanish has no words of its own: the topic's own show.
      const spanish = await booking('es');
      expect(spanish).toContain('Konsultacja');
      expect(spanish).not.toContain('Gartenberatung');

      // An emptied field is "not translated" again: German falls back to the topic's own name.
      const cleared = await browser.post(
        `/app/topics/${uuid}`,
        { ...formValuesOf(again, 'class="topic-form"'), op: 'save', 'translation.de.name': '' },
        { 'accept-language': 'pl' },
      );
      expect(cleared.statusCode).toBe(303);
      const after = (await call(t.app, apiKey, 'GET', `/api/v1/meeting-topics/${uuid}`)).json();
      expect(after.translations.de.name).toBeUndefined();
      expect(after.translations.de.description).toBe('Ein Gespräch im Garten.');
      expect(await booking('de')).toContain('Konsultacja');
    });

    it('refuses a translated name of two lines next to its field, in the page’s language', async () => {
      const edit = await page(`/app/topics/${uuid}`, 'de');
      const response = await browser.post(
        `/app/topics/${uuid}`,
        { ...formValuesOf(edit, 'class="topic-form"'), op: 'save', 'translation.uk.name': 'Консультація\nдруга' },
        { 'accept-language': 'de' },
      );
      expect(response.statusCode).toBe(400);
      expect(response.body).toContain('<p class="field-error" id="f-tr-uk-name-error">Verwenden Sie eine Zeile, ohne Sonderzeichen.</p>');
      expect(response.body).toContain('<a href="#f-tr-uk-name">Name (Ukrainisch)</a>');
    });
  });
}
