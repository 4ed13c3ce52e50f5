import { buildForEachLang } from './catalogue.js';

/** The names of the "add to your calendar" links, the same in e-mails and on the manage page (locales/<lang>/common.json, `calendarLinks`). */
export const CALENDAR_LINK_LABELS = buildForEachLang('common', (t) => ({ google: t('calendarLinks.google'), outlook: t('calendarLinks.outlook') }));
