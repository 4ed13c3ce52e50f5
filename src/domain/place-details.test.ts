import { describe, expect, it } from 'vitest';
import { keepOfferedPlaces, normalizePlaceDetails, resolveLocation, validatePlaceDetails } from './place-details.js';

describe('validatePlaceDetails', () => {
  const offered = ['offline', 'zoom', 'phone-call'] as const;
  it.each([
    [{ offline: 'ul. Prosta 1, Warszawa' }, []],
    [{ zoom: 'https://zoom.us/j/123?pwd=x' }, []],
    [{ 'phone-call': '+48 22 123 45 67' }, []],
    [{ zoom: 'http://zoom.us/j/123' }, ['/placeDetails/zoom']],
    [{ zoom: 'zoom.us/j/123' }, ['/placeDetails/zoom']],
    [{ zoom: 'https://zoom.us/j/1 extra' }, ['/placeDetails/zoom']],
    [{ zoom: 'javascript:alert(1)' }, ['/placeDetails/zoom']],
    [{ offline: '' }, ['/placeDetails/offline']],
    [{ offline: '   ' }, ['/placeDetails/offline']],
    [{ offline: 'a\nb' }, ['/placeDetails/offline']],
    [{ offline: 'x'.repeat(500) }, []],
    [{ offline: 'x'.repeat(501) }, ['/placeDetails/offline']],
    [{ webex: 'https://webex.com/meet/x' }, ['/placeDetails/webex']],
    [{ nowhere: 'x' }, ['/placeDetails/nowhere']],
  ])('%j → errors at %j', (details, paths) => {
    expect(validatePlaceDetails(details, offered, '/placeDetails', 'is not a place the topic offers').map((error) => error.path)).toEqual(paths);
  });
});

describe('resolveLocation', () => {
  const host = { zoom: 'https://zoom.us/j/host' };
  const topic = { zoom: 'https://zoom.us/j/topic', offline: 'ul. Prosta 1', 'phone-call': '+48 22 000 00 00' };
  it.each([
    ['zoom', host, topic, null, { url: 'https://zoom.us/j/host', source: 'host' }],
    ['zoom', {}, topic, null, { url: 'https://zoom.us/j/topic', source: 'topic' }],
    ['offline', host, topic, null, { address: 'ul. Prosta 1', source: 'topic' }],
    ['phone-call', {}, topic, '+48 600 000 000', { phone: '+48 22 000 00 00', source: 'topic' }],
    ['phone-call', {}, {}, ' +48 600 000 000 ', { phone: '+48 600 000 000', source: 'participant' }],
    ['phone-call', {}, {}, null, { phone: null, text: null, source: null }],
    ['offline', {}, {}, '+48 600 000 000', { address: null, phone: null, text: null, source: null }],
  ] as const)('%s, host %j, topic %j, phone %j → %j', (place, hostDetails, topicDetails, phone, expected) => {
    const location = resolveLocation(place, hostDetails, topicDetails, phone);
    expect(location).toMatchObject({ place, ...expected });
    const set = [location.address, location.url, location.phone].filter((value) => value !== null);
    expect(set.length).toBeLessThanOrEqual(1);
    expect(location.text).toBe(set[0] ?? null);
  });
});

describe('normalizePlaceDetails and keepOfferedPlaces', () => {
  it('trims values, orders places canonically, and forgets places no longer offered', () => {
    const normalized = normalizePlaceDetails({ zoom: ' https://zoom.us/j/1 ', offline: 'Prosta 1 ' });
    expect(Object.entries(normalized)).toEqual([
      ['offline', 'Prosta 1'],
      ['zoom', 'https://zoom.us/j/1'],
    ]);
    expect(keepOfferedPlaces(normalized, ['zoom'])).toEqual({ zoom: 'https://zoom.us/j/1' });
  });
});
