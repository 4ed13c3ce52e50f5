import type { Place } from '../domain/account.js';
import { buildForEachLang } from './catalogue.js';

/** How each meeting place is named to people: one table for e-mails, invitations and pages (locales/<lang>/common.json, `places`). */
export const PLACE_LABELS = buildForEachLang(
  'common',
  (t): Record<Place, string> => ({
    offline: t('places.offline'),
    'phone-call': t('places.phone-call'),
    'google-meet': t('places.google-meet'),
    teamsForBusiness: t('places.teamsForBusiness'),
    skypeForBusiness: t('places.skypeForBusiness'),
    skypeForConsumer: t('places.skypeForConsumer'),
    zoom: t('places.zoom'),
    webex: t('places.webex'),
  }),
);
