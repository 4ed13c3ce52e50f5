import type { Place } from './account.js';
import type { Lang } from './meeting.js';

/** How each meeting place is named to people: one table for e-mails, invitations and pages. */
export const PLACE_LABELS: Record<Lang, Record<Place, string>> = {
  en: {
    offline: 'In person',
    'phone-call': 'Phone call',
    'google-meet': 'Google Meet',
    teamsForBusiness: 'Microsoft Teams',
    skypeForBusiness: 'Skype for Business',
    skypeForConsumer: 'Skype',
    zoom: 'Zoom',
    webex: 'Webex',
  },
  pl: {
    offline: 'Spotkanie osobiste',
    'phone-call': 'Rozmowa telefoniczna',
    'google-meet': 'Google Meet',
    teamsForBusiness: 'Microsoft Teams',
    skypeForBusiness: 'Skype dla firm',
    skypeForConsumer: 'Skype',
    zoom: 'Zoom',
    webex: 'Webex',
  },
};
