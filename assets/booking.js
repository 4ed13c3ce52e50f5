// termin booking and manage pages: a small progressive script, no framework, no globals.
// The server renders the page (texts, topic, form); this script fills the calendar from the
// public API, books, and talks to the embedding page when inside the embed's iframe.
(function () {
  'use strict';

  var API = '/api/v1';

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) for (var key in attrs) if (attrs[key] !== null && attrs[key] !== undefined) node.setAttribute(key, attrs[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function isZone(name) {
    if (!name) return false;
    try { new Intl.DateTimeFormat('en', { timeZone: name }); return true; } catch (e) { return false; }
  }
  /**
   * The locale times and dates read in: the browser's own region of the page's language
   * (en-US: 12-hour, month first; en-GB: 24-hour), else the language as the server and the
   * e-mails read it (`en`, `pl-PL`, `de`…). The server picks the same from Accept-Language.
   */
  function locale(lang) {
    var tags = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ''];
    for (var i = 0; i < tags.length; i++) {
      var m = /^([a-z]{2})-([a-z]{2}|[0-9]{3})$/i.exec(tags[i] || '');
      if (m && m[1].toLowerCase() === lang) return lang + '-' + m[2].toUpperCase();
    }
    return lang === 'pl' ? 'pl-PL' : lang;
  }
  /**
   * A plural message as the server sends it (its forms by Intl plural category, `{count}` where
   * the number goes): `plural({ one: '{count} seat left', other: '{count} seats left' }, 2, 'en')`
   * → "2 seats left". A category the language did not need up to 1000 falls back to `other`.
   */
  function plural(forms, count, lang) {
    if (typeof forms === 'string') return forms.replace('{count}', String(count));
    var text = forms[new Intl.PluralRules(lang).select(count)] || forms.other || '';
    return text.replace('{count}', new Intl.NumberFormat(locale(lang)).format(count));
  }

  // --- 12- or 24-hour time: the locale's habit, unless the visitor chose (kept in localStorage) ---
  var HOUR_KEY = 'termin.hourCycle';
  var chosenCycle = null;
  function storedCycle() {
    if (chosenCycle) return chosenCycle;
    try { var value = window.localStorage.getItem(HOUR_KEY); return value === '12' || value === '24' ? value : null; } catch (e) { return null; }
  }
  function hour12(lang) {
    var stored = storedCycle();
    if (stored) return stored === '12';
    // Without an hour field resolvedOptions() names no hourCycle, hence timeStyle.
    var cycle = new Intl.DateTimeFormat(locale(lang), { timeStyle: 'short' }).resolvedOptions().hourCycle;
    return cycle === 'h11' || cycle === 'h12';
  }
  /** The locale the participant's e-mails should read in: the page's, with the hour cycle they chose (en-US-u-hc-h23). */
  function messageLocale(lang) {
    var stored = storedCycle();
    return locale(lang) + (stored ? '-u-hc-' + (stored === '12' ? 'h12' : 'h23') : '');
  }
  /** As src/domain/formats.ts formats them, so the page reads like its e-mail: "9:00 AM", "09:00". */
  function formatTime(instant, zone, lang) {
    // hourCycle, not hour12: `hour12: false` gives "24:00" at midnight in some ICU versions.
    return new Intl.DateTimeFormat(locale(lang), { timeStyle: 'short', timeZone: zone, hourCycle: hour12(lang) ? 'h12' : 'h23' }).format(new Date(instant));
  }
  function formatDate(instant, zone, lang) {
    return new Intl.DateTimeFormat(locale(lang), { dateStyle: 'full', timeZone: zone }).format(new Date(instant));
  }
  function formatRange(start, end, zone, lang) {
    var sameDay = formatDate(start, zone, lang) === formatDate(end, zone, lang);
    var to = sameDay ? formatTime(end, zone, lang) : formatDate(end, zone, lang) + ', ' + formatTime(end, zone, lang);
    return formatDate(start, zone, lang) + ', ' + formatTime(start, zone, lang) + (sameDay ? '\u2013' : ' \u2013 ') + to;
  }
  /** The server-drawn "When" and deadline, again in the visitor's 12/24-hour choice. */
  function redrawWhen(scope, lang) {
    var when = scope.querySelector('#when[data-start]');
    if (when) when.textContent = formatRange(Number(when.getAttribute('data-start')), Number(when.getAttribute('data-end')), when.getAttribute('data-zone'), lang);
    var until = scope.querySelector('#change-until-at[data-start]');
    if (until) {
      var at = Number(until.getAttribute('data-start'));
      var zone = until.getAttribute('data-zone');
      until.textContent = formatDate(at, zone, lang) + ', ' + formatTime(at, zone, lang);
    }
  }
  /** Shows the 12/24-hour switch checked as times now read; a change is remembered, then `onChange()`. */
  function hourSwitch(lang, onChange) {
    var box = $('hour-switch');
    if (!box) return;
    var current = hour12(lang) ? '12' : '24';
    Array.prototype.forEach.call(box.querySelectorAll('input[name=hour-cycle]'), function (input) {
      input.checked = input.value === current;
      input.addEventListener('change', function () {
        if (!input.checked) return;
        chosenCycle = input.value;
        try { window.localStorage.setItem(HOUR_KEY, input.value); } catch (e) { /* kept for this page only */ }
        onChange();
      });
    });
    box.hidden = false;
  }

  /** Today's year, month and date in `zone`. */
  function todayIn(zone) {
    var parts = {};
    new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })
      .formatToParts(new Date()).forEach(function (p) { parts[p.type] = p.value; });
    return { year: Number(parts.year), month: Number(parts.month), date: parts.year + '-' + parts.month + '-' + parts.day };
  }

  function postJson(url, body, lang) {
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'accept-language': lang },
      body: JSON.stringify(body),
      credentials: 'omit',
    }).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
        return { status: response.status, data: data };
      });
    });
  }

  // --- the embed: height and outcome go to the host page, and only to its origin ---------
  function embedding(config) {
    var origin = config.embedOrigin;
    if (!origin || window.parent === window) return null;
    // Chromium and Safari name the real ancestor: never post to an origin that is not it.
    var ancestors = window.location.ancestorOrigins;
    if (ancestors && ancestors.length > 0 && ancestors[0] !== origin) return null;
    function post(message) { window.parent.postMessage(message, origin); }
    var last = 0;
    function sendHeight() {
      var height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== last) { last = height; post({ type: 'termin:height', height: height }); }
    }
    if (window.ResizeObserver) new ResizeObserver(sendHeight).observe(document.documentElement);
    window.addEventListener('load', sendHeight);
    sendHeight();
    return { post: post };
  }

  // --- the time-zone picker: search by city, country, zone name or offset ------------------
  /**
   * Zones Intl lists under their old names (ICU keeps `Asia/Calcutta`), with the names people
   * know today; searching finds both, and the new name is the one applied.
   */
  var RENAMED = {
    'Africa/Asmera': 'Africa/Asmara', 'America/Buenos_Aires': 'America/Argentina/Buenos_Aires', 'America/Catamarca': 'America/Argentina/Catamarca',
    'America/Coral_Harbour': 'America/Atikokan', 'America/Cordoba': 'America/Argentina/Cordoba', 'America/Godthab': 'America/Nuuk',
    'America/Indianapolis': 'America/Indiana/Indianapolis', 'America/Jujuy': 'America/Argentina/Jujuy', 'America/Louisville': 'America/Kentucky/Louisville',
    'America/Mendoza': 'America/Argentina/Mendoza', 'Asia/Calcutta': 'Asia/Kolkata', 'Asia/Katmandu': 'Asia/Kathmandu', 'Asia/Rangoon': 'Asia/Yangon',
    'Asia/Saigon': 'Asia/Ho_Chi_Minh', 'Atlantic/Faeroe': 'Atlantic/Faroe', 'Europe/Kiev': 'Europe/Kyiv', 'Pacific/Enderbury': 'Pacific/Kanton',
    'Pacific/Ponape': 'Pacific/Pohnpei', 'Pacific/Truk': 'Pacific/Chuuk',
  };
  /** Each zone's country (ISO 3166 code), from tzdata's zone.tab; the country's name comes from Intl.DisplayNames. */
  var ZONE_COUNTRIES =
    'AD:Europe/Andorra;AE:Asia/Dubai;AF:Asia/Kabul;AG:America/Antigua;AI:America/Anguilla;AL:Europe/Tirane;AM:Asia/Yerevan;AO:Africa/Luanda;' +
    'AQ:Antarctica/McMurdo,Antarctica/Casey,Antarctica/Davis,Antarctica/DumontDUrville,Antarctica/Mawson,Antarctica/Palmer,Antarctica/Rothera,Antarctica/Syowa,Antarctica/Troll,Antarctica/Vostok;' +
    'AR:America/Argentina/Buenos_Aires,America/Argentina/Cordoba,America/Argentina/Salta,America/Argentina/Jujuy,America/Argentina/Tucuman,America/Argentina/Catamarca,America/Argentina/La_Rioja,America/Argentina/San_Juan,America/Argentina/Mendoza,America/Argentina/San_Luis,America/Argentina/Rio_Gallegos,America/Argentina/Ushuaia;' +
    'AS:Pacific/Pago_Pago;AT:Europe/Vienna;' +
    'AU:Australia/Lord_Howe,Antarctica/Macquarie,Australia/Hobart,Australia/Melbourne,Australia/Sydney,Australia/Broken_Hill,Australia/Brisbane,Australia/Lindeman,Australia/Adelaide,Australia/Darwin,Australia/Perth,Australia/Eucla;' +
    'AW:America/Aruba;AX:Europe/Mariehamn;AZ:Asia/Baku;BA:Europe/Sarajevo;BB:America/Barbados;BD:Asia/Dhaka;BE:Europe/Brussels;BF:Africa/Ouagadougou;' +
    'BG:Europe/Sofia;BH:Asia/Bahrain;BI:Africa/Bujumbura;BJ:Africa/Porto-Novo;BL:America/St_Barthelemy;BM:Atlantic/Bermuda;BN:Asia/Brunei;' +
    'BO:America/La_Paz;BQ:America/Kralendijk;' +
    'BR:America/Noronha,America/Belem,America/Fortaleza,America/Recife,America/Araguaina,America/Maceio,America/Bahia,America/Sao_Paulo,America/Campo_Grande,America/Cuiaba,America/Santarem,America/Porto_Velho,America/Boa_Vista,America/Manaus,America/Eirunepe,America/Rio_Branco;' +
    'BS:America/Nassau;BT:Asia/Thimphu;BW:Africa/Gaborone;BY:Europe/Minsk;BZ:America/Belize;' +
    'CA:America/St_Johns,America/Halifax,America/Glace_Bay,America/Moncton,America/Goose_Bay,America/Blanc-Sablon,America/Toronto,America/Iqaluit,America/Atikokan,America/Winnipeg,America/Resolute,America/Rankin_Inlet,America/Regina,America/Swift_Current,America/Edmonton,America/Cambridge_Bay,America/Inuvik,America/Creston,America/Dawson_Creek,America/Fort_Nelson,America/Whitehorse,America/Dawson,America/Vancouver;' +
    'CC:Indian/Cocos;CD:Africa/Kinshasa,Africa/Lubumbashi;CF:Africa/Bangui;CG:Africa/Brazzaville;CH:Europe/Zurich;CI:Africa/Abidjan;CK:Pacific/Rarotonga;' +
    'CL:America/Santiago,America/Coyhaique,America/Punta_Arenas,Pacific/Easter;CM:Africa/Douala;CN:Asia/Shanghai,Asia/Urumqi;CO:America/Bogota;' +
    'CR:America/Costa_Rica;CU:America/Havana;CV:Atlantic/Cape_Verde;CW:America/Curacao;CX:Indian/Christmas;CY:Asia/Nicosia,Asia/Famagusta;CZ:Europe/Prague;' +
    'DE:Europe/Berlin,Europe/Busingen;DJ:Africa/Djibouti;DK:Europe/Copenhagen;DM:America/Dominica;DO:America/Santo_Domingo;DZ:Africa/Algiers;' +
    'EC:America/Guayaquil,Pacific/Galapagos;EE:Europe/Tallinn;EG:Africa/Cairo;EH:Africa/El_Aaiun;ER:Africa/Asmara;' +
    'ES:Europe/Madrid,Africa/Ceuta,Atlantic/Canary;ET:Africa/Addis_Ababa;FI:Europe/Helsinki;FJ:Pacific/Fiji;FK:Atlantic/Stanley;' +
    'FM:Pacific/Chuuk,Pacific/Pohnpei,Pacific/Kosrae;FO:Atlantic/Faroe;FR:Europe/Paris;GA:Africa/Libreville;GB:Europe/London;GD:America/Grenada;' +
    'GE:Asia/Tbilisi;GF:America/Cayenne;GG:Europe/Guernsey;GH:Africa/Accra;GI:Europe/Gibraltar;' +
    'GL:America/Nuuk,America/Danmarkshavn,America/Scoresbysund,America/Thule;GM:Africa/Banjul;GN:Africa/Conakry;GP:America/Guadeloupe;GQ:Africa/Malabo;' +
    'GR:Europe/Athens;GS:Atlantic/South_Georgia;GT:America/Guatemala;GU:Pacific/Guam;GW:Africa/Bissau;GY:America/Guyana;HK:Asia/Hong_Kong;' +
    'HN:America/Tegucigalpa;HR:Europe/Zagreb;HT:America/Port-au-Prince;HU:Europe/Budapest;ID:Asia/Jakarta,Asia/Pontianak,Asia/Makassar,Asia/Jayapura;' +
    'IE:Europe/Dublin;IL:Asia/Jerusalem;IM:Europe/Isle_of_Man;IN:Asia/Kolkata;IO:Indian/Chagos;IQ:Asia/Baghdad;IR:Asia/Tehran;IS:Atlantic/Reykjavik;' +
    'IT:Europe/Rome;JE:Europe/Jersey;JM:America/Jamaica;JO:Asia/Amman;JP:Asia/Tokyo;KE:Africa/Nairobi;KG:Asia/Bishkek;KH:Asia/Phnom_Penh;' +
    'KI:Pacific/Tarawa,Pacific/Kanton,Pacific/Kiritimati;KM:Indian/Comoro;KN:America/St_Kitts;KP:Asia/Pyongyang;KR:Asia/Seoul;KW:Asia/Kuwait;' +
    'KY:America/Cayman;KZ:Asia/Almaty,Asia/Qyzylorda,Asia/Qostanay,Asia/Aqtobe,Asia/Aqtau,Asia/Atyrau,Asia/Oral;LA:Asia/Vientiane;LB:Asia/Beirut;' +
    'LC:America/St_Lucia;LI:Europe/Vaduz;LK:Asia/Colombo;LR:Africa/Monrovia;LS:Africa/Maseru;LT:Europe/Vilnius;LU:Europe/Luxembourg;LV:Europe/Riga;' +
    'LY:Africa/Tripoli;MA:Africa/Casablanca;MC:Europe/Monaco;MD:Europe/Chisinau;ME:Europe/Podgorica;MF:America/Marigot;MG:Indian/Antananarivo;' +
    'MH:Pacific/Majuro,Pacific/Kwajalein;MK:Europe/Skopje;ML:Africa/Bamako;MM:Asia/Yangon;MN:Asia/Ulaanbaatar,Asia/Hovd;MO:Asia/Macau;MP:Pacific/Saipan;' +
    'MQ:America/Martinique;MR:Africa/Nouakchott;MS:America/Montserrat;MT:Europe/Malta;MU:Indian/Mauritius;MV:Indian/Maldives;MW:Africa/Blantyre;' +
    'MX:America/Mexico_City,America/Cancun,America/Merida,America/Monterrey,America/Matamoros,America/Chihuahua,America/Ciudad_Juarez,America/Ojinaga,America/Mazatlan,America/Bahia_Banderas,America/Hermosillo,America/Tijuana;' +
    'MY:Asia/Kuala_Lumpur,Asia/Kuching;MZ:Africa/Maputo;NA:Africa/Windhoek;NC:Pacific/Noumea;NE:Africa/Niamey;NF:Pacific/Norfolk;NG:Africa/Lagos;' +
    'NI:America/Managua;NL:Europe/Amsterdam;NO:Europe/Oslo;NP:Asia/Kathmandu;NR:Pacific/Nauru;NU:Pacific/Niue;NZ:Pacific/Auckland,Pacific/Chatham;' +
    'OM:Asia/Muscat;PA:America/Panama;PE:America/Lima;PF:Pacific/Tahiti,Pacific/Marquesas,Pacific/Gambier;PG:Pacific/Port_Moresby,Pacific/Bougainville;' +
    'PH:Asia/Manila;PK:Asia/Karachi;PL:Europe/Warsaw;PM:America/Miquelon;PN:Pacific/Pitcairn;PR:America/Puerto_Rico;PS:Asia/Gaza,Asia/Hebron;' +
    'PT:Europe/Lisbon,Atlantic/Madeira,Atlantic/Azores;PW:Pacific/Palau;PY:America/Asuncion;QA:Asia/Qatar;RE:Indian/Reunion;RO:Europe/Bucharest;' +
    'RS:Europe/Belgrade;' +
    'RU:Europe/Kaliningrad,Europe/Moscow,Europe/Kirov,Europe/Volgograd,Europe/Astrakhan,Europe/Saratov,Europe/Ulyanovsk,Europe/Samara,Asia/Yekaterinburg,Asia/Omsk,Asia/Novosibirsk,Asia/Barnaul,Asia/Tomsk,Asia/Novokuznetsk,Asia/Krasnoyarsk,Asia/Irkutsk,Asia/Chita,Asia/Yakutsk,Asia/Khandyga,Asia/Vladivostok,Asia/Ust-Nera,Asia/Magadan,Asia/Sakhalin,Asia/Srednekolymsk,Asia/Kamchatka,Asia/Anadyr;' +
    'RW:Africa/Kigali;SA:Asia/Riyadh;SB:Pacific/Guadalcanal;SC:Indian/Mahe;SD:Africa/Khartoum;SE:Europe/Stockholm;SG:Asia/Singapore;SH:Atlantic/St_Helena;' +
    'SI:Europe/Ljubljana;SJ:Arctic/Longyearbyen;SK:Europe/Bratislava;SL:Africa/Freetown;SM:Europe/San_Marino;SN:Africa/Dakar;SO:Africa/Mogadishu;' +
    'SR:America/Paramaribo;SS:Africa/Juba;ST:Africa/Sao_Tome;SV:America/El_Salvador;SX:America/Lower_Princes;SY:Asia/Damascus;SZ:Africa/Mbabane;' +
    'TC:America/Grand_Turk;TD:Africa/Ndjamena;TF:Indian/Kerguelen;TG:Africa/Lome;TH:Asia/Bangkok;TJ:Asia/Dushanbe;TK:Pacific/Fakaofo;TL:Asia/Dili;' +
    'TM:Asia/Ashgabat;TN:Africa/Tunis;TO:Pacific/Tongatapu;TR:Europe/Istanbul;TT:America/Port_of_Spain;TV:Pacific/Funafuti;TW:Asia/Taipei;' +
    'TZ:Africa/Dar_es_Salaam;UA:Europe/Simferopol,Europe/Kyiv;UG:Africa/Kampala;UM:Pacific/Midway,Pacific/Wake;' +
    'US:America/New_York,America/Detroit,America/Kentucky/Louisville,America/Kentucky/Monticello,America/Indiana/Indianapolis,America/Indiana/Vincennes,America/Indiana/Winamac,America/Indiana/Marengo,America/Indiana/Petersburg,America/Indiana/Vevay,America/Chicago,America/Indiana/Tell_City,America/Indiana/Knox,America/Menominee,America/North_Dakota/Center,America/North_Dakota/New_Salem,America/North_Dakota/Beulah,America/Denver,America/Boise,America/Phoenix,America/Los_Angeles,America/Anchorage,America/Juneau,America/Sitka,America/Metlakatla,America/Yakutat,America/Nome,America/Adak,Pacific/Honolulu;' +
    'UY:America/Montevideo;UZ:Asia/Samarkand,Asia/Tashkent;VA:Europe/Vatican;VC:America/St_Vincent;VE:America/Caracas;VG:America/Tortola;' +
    'VI:America/St_Thomas;VN:Asia/Ho_Chi_Minh;VU:Pacific/Efate;WF:Pacific/Wallis;WS:Pacific/Apia;YE:Asia/Aden;YT:Indian/Mayotte;ZA:Africa/Johannesburg;' +
    'ZM:Africa/Lusaka;ZW:Africa/Harare;';

  /** Lower case, accents and Polish ł dropped, `_` and `/` as spaces: "Łódź" and "lodz" meet. */
  function fold(text) {
    return String(text).normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[łŁ]/g, 'l').toLowerCase().replace(/[_/,()]+/g, ' ').replace(/\s+/g, ' ').trim();
  }

  /** Minutes east of UTC in `zone` now, read from Intl ("GMT+05:30"), no table of ours. */
  function offsetOf(zone, now) {
    var name = '';
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' }).formatToParts(now).forEach(function (p) { if (p.type === 'timeZoneName') name = p.value; });
    } catch (e) { return null; }
    var m = /([+-−])(\d{1,2})(?::?(\d{2}))?/.exec(name);
    if (!m) return 0;
    return (m[1] === '+' ? 1 : -1) * (Number(m[2]) * 60 + Number(m[3] || 0));
  }
  function offsetLabel(minutes) {
    var abs = Math.abs(minutes);
    return 'UTC' + (minutes < 0 ? '−' : '+') + pad(Math.floor(abs / 60)) + ':' + pad(abs % 60);
  }
  /**
   * The zone's name as people say it, in the page's language, from Intl ("Central European
   * Time", "czas środkowoeuropejski"): the generic name where the engine has one, else the
   * name of the moment (standard or summer time); null when Intl names only an offset.
   */
  function zoneName(zone, lang) {
    var styles = ['longGeneric', 'long'];
    for (var i = 0; i < styles.length; i++) {
      var name = null;
      try {
        new Intl.DateTimeFormat(locale(lang), { timeZone: zone, timeZoneName: styles[i] }).formatToParts(new Date()).forEach(function (p) { if (p.type === 'timeZoneName') name = p.value; });
      } catch (e) { name = null; }
      if (name && !/^(GMT|UTC)([+\-−]|$)/.test(name)) return name;
    }
    return null;
  }

  /** "GMT+2", "utc +02:00", "+5:30", "UTC-3" → minutes; anything else → null. */
  function parseOffset(query) {
    var m = /^(?:utc|gmt|ut)?\s*([+-−])\s*(\d{1,2})(?:(?::|\.)?(\d{2}))?$/i.exec(query.trim());
    if (!m || (!/^(utc|gmt|ut)/i.test(query.trim()) && !/^[+-−]/.test(query.trim()))) return null;
    var hours = Number(m[2]);
    var minutes = Number(m[3] || 0);
    if (hours > 14 || minutes > 59) return null;
    return (m[1] === '+' ? 1 : -1) * (hours * 60 + minutes);
  }

  /** Every zone Intl knows, with what a person may type for it. Built once, on first use. */
  function zoneIndex(lang) {
    var countries = {};
    ZONE_COUNTRIES.split(';').forEach(function (group) {
      var parts = group.split(':');
      if (parts.length === 2) parts[1].split(',').forEach(function (zone) { countries[zone] = parts[0]; });
    });
    var names = [];
    try { names = [new Intl.DisplayNames([locale(lang)], { type: 'region' }), new Intl.DisplayNames(['en'], { type: 'region' })]; } catch (e) { names = []; }
    var ids = Intl.supportedValuesOf ? Intl.supportedValuesOf('timeZone').slice() : [];
    if (ids.indexOf('UTC') < 0) ids.push('UTC');
    var now = new Date();
    return ids.map(function (id) {
      var modern = RENAMED[id] && isZone(RENAMED[id]) ? RENAMED[id] : id;
      var code = countries[modern] || countries[id] || null;
      var country = code && names.length ? names[0].of(code) : '';
      var city = modern.split('/').pop().replace(/_/g, ' ');
      var cities = [fold(city), fold(id.split('/').pop())];
      var words = [fold(modern), fold(id), cities.join(' ')];
      if (code) names.forEach(function (n) { words.push(fold(n.of(code))); });
      return { id: modern, city: modern === 'UTC' ? 'UTC' : city, country: country, cities: cities, countries: words.slice(3), text: ' ' + words.join(' ') + ' ', offset: offsetOf(modern, now) };
    }).filter(function (entry) { return entry.offset !== null; });
  }

  /**
   * The zones matching what was typed, best first: a city named exactly so, then a city that
   * begins so, then a country, then any word of the zone's name; or, for "GMT+2", the zones
   * at that offset now.
   */
  function searchZones(index, query) {
    var offset = parseOffset(query);
    if (offset !== null) return index.filter(function (z) { return z.offset === offset; }).map(function (z) { return { zone: z, score: 2 }; });
    var q = fold(query);
    if (!q) return [];
    var words = q.split(' ');
    var found = [];
    index.forEach(function (z) {
      var all = words.every(function (w) { return z.text.indexOf(' ' + w) >= 0; });
      if (!all) return;
      var score = 0;
      if (z.cities.indexOf(q) >= 0 || fold(z.id) === q) score = 3;
      else if (z.countries.indexOf(q) >= 0) score = 2;
      else if (z.cities.some(function (c) { return c.indexOf(q) === 0; })) score = 1;
      found.push({ zone: z, score: score });
    });
    return found.sort(function (a, b) { return b.score - a.score || (a.zone.id < b.zone.id ? -1 : 1); });
  }

  function zonePicker(options) {
    var input = options.input;
    var listbox = options.listbox;
    var error = options.error;
    var strings = options.strings;
    var index = null;
    var current = options.initial;
    var results = [];
    var active = -1;
    input.value = current;

    function ensureIndex() { if (!index) index = zoneIndex(options.lang); return index; }
    function localTime(zone) {
      return formatTime(Date.now(), zone, options.lang);
    }
    /** Under the field: the chosen zone's name and the time there now, "Central European Time · 10:42". */
    var now = options.now;
    function showNow() {
      if (!now) return;
      var name = zoneName(current, options.lang);
      var text = (name || current.replace(/_/g, ' ')) + ' \u00b7 ' + localTime(current);
      if (now.textContent !== text) now.textContent = text;
    }
    function close() {
      listbox.hidden = true;
      input.setAttribute('aria-expanded', 'false');
      input.removeAttribute('aria-activedescendant');
      active = -1;
    }
    function highlight(i) {
      active = i;
      Array.prototype.forEach.call(listbox.children, function (li, n) { li.setAttribute('aria-selected', n === i ? 'true' : 'false'); });
      if (i >= 0 && listbox.children[i]) {
        input.setAttribute('aria-activedescendant', listbox.children[i].id);
        listbox.children[i].scrollIntoView({ block: 'nearest' });
      } else input.removeAttribute('aria-activedescendant');
    }
    function show() {
      results = searchZones(ensureIndex(), input.value).slice(0, 8);
      listbox.textContent = '';
      results.forEach(function (r, n) {
        var z = r.zone;
        var li = el('li', { id: 'tz-option-' + n, role: 'option', 'aria-selected': 'false', 'data-zone': z.id });
        li.appendChild(el('span', { class: 'tz-name' }, z.city + (z.country ? ', ' + z.country : '')));
        li.appendChild(el('span', { class: 'tz-meta' }, (zoneName(z.id, options.lang) || z.id.replace(/_/g, ' ')) + ' · ' + localTime(z.id) + ' · ' + offsetLabel(z.offset)));
        li.addEventListener('mousedown', function (event) { event.preventDefault(); });
        li.addEventListener('click', function () { apply(z.id); });
        listbox.appendChild(li);
      });
      listbox.hidden = results.length === 0;
      input.setAttribute('aria-expanded', results.length ? 'true' : 'false');
      highlight(-1);
    }
    function markInvalid(value) {
      input.setAttribute('aria-invalid', 'true');
      error.textContent = strings.tzUnknown.replace('{value}', value).replace('{zone}', current.replace(/_/g, ' '));
    }
    function apply(zone) {
      close();
      input.value = zone;
      input.removeAttribute('aria-invalid');
      error.textContent = '';
      if (zone !== current) { current = zone; showNow(); options.onChange(zone); }
    }
    /** What was typed, applied: a zone's own name, or the best match; otherwise said to be unknown. */
    function commit() {
      var value = input.value.trim();
      if (value === current && !input.hasAttribute('aria-invalid')) { close(); return; }
      var exact = null;
      ensureIndex().some(function (z) { if (z.id.toLowerCase() === value.toLowerCase().replace(/ /g, '_')) { exact = z.id; return true; } return false; });
      if (exact) { apply(exact); return; }
      var best = searchZones(index, value);
      if (best.length > 0 && (best[0].score > 0 || best.length === 1)) { apply(best[0].zone.id); return; }
      // Old links Intl still takes ("US/Eastern", "Japan"), under the name it resolves them to.
      if (isZone(value) && parseOffset(value) === null) {
        var resolved = new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
        apply(RENAMED[resolved] && isZone(RENAMED[resolved]) ? RENAMED[resolved] : resolved);
        return;
      }
      close();
      markInvalid(value);
    }

    input.addEventListener('focus', function () { ensureIndex(); });
    input.addEventListener('input', show);
    input.addEventListener('keydown', function (event) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        if (listbox.hidden) show();
        if (!results.length) return;
        var next = event.key === 'ArrowDown' ? active + 1 : active - 1;
        highlight((next + results.length) % results.length);
      } else if (event.key === 'Enter') {
        event.preventDefault();
        if (active >= 0 && results[active]) apply(results[active].zone.id); else commit();
      } else if (event.key === 'Escape') {
        if (!listbox.hidden) { event.preventDefault(); close(); }
      }
    });
    input.addEventListener('blur', function () { if (input.value.trim() !== current) commit(); else close(); });
    // A zone in the link that is not one stays said until a zone is chosen.
    if (options.linkError) input.setAttribute('aria-invalid', 'true');
    showNow();
    // The time there keeps up with the clock (checked twice a minute; the text changes once).
    if (now) window.setInterval(showNow, 30000);
    return { refresh: showNow };
  }

  // --- the month calendar ------------------------------------------------------------------
  /**
   * A month of days: each day with a free slot is a `<button data-date>`, the chosen day's
   * slots `<button data-start>` labelled in the participant's zone. `load(year, month, zone)`
   * resolves to the API's schedule; `onSlot(slot, label)` is called when one is chosen.
   */
  function Calendar(options) {
    var strings = options.strings;
    var lang = options.lang;
    var zone = options.zone;
    var view = todayIn(zone);
    var first = { year: view.year, month: view.month };
    var days = [];
    var chosenDate = null;
    var chosenStart = null;
    var token = 0;

    var daysBox = $(options.ids.days);
    var status = $(options.ids.status);
    var monthLabel = $(options.ids.monthLabel);
    var prev = $(options.ids.prev);
    var next = $(options.ids.next);
    var times = $(options.ids.times);
    var slotsBox = $(options.ids.slots);
    var dayLabel = $(options.ids.dayLabel);
    var timesHeading = $(options.ids.timesHeading);

    var weekdays = $(options.ids.weekdays);
    if (weekdays && !weekdays.hasChildNodes()) {
      var fmt = new Intl.DateTimeFormat(locale(lang), { weekday: 'short', timeZone: 'UTC' });
      for (var i = 0; i < 7; i++) weekdays.appendChild(el('span', null, fmt.format(new Date(Date.UTC(2024, 0, 1 + i)))));
    }

    var chosenSlotDate = null;
    function timeLabel(start) { return formatTime(start, zone, lang); }
    function slotLabel(date, start) { return dateLabel(date) + ', ' + timeLabel(start) + ' (' + zone.replace(/_/g, ' ') + ')'; }
    function dateLabel(date, style) {
      var parts = date.split('-');
      return new Intl.DateTimeFormat(locale(lang), style || { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' })
        .format(new Date(Date.UTC(Number(parts[0]), Number(parts[1]) - 1, Number(parts[2]))));
    }

    function renderMonth() {
      monthLabel.textContent = new Intl.DateTimeFormat(locale(lang), { month: 'long', year: 'numeric', timeZone: 'UTC' })
        .format(new Date(Date.UTC(view.year, view.month - 1, 1)));
      prev.disabled = view.year === first.year && view.month === first.month;
      daysBox.textContent = '';
      var today = todayIn(zone).date;
      var lead = (new Date(Date.UTC(view.year, view.month - 1, 1)).getUTCDay() + 6) % 7;
      for (var i = 0; i < lead; i++) daysBox.appendChild(el('span', { class: 'day blank', 'aria-hidden': 'true' }));
      var any = false;
      days.forEach(function (day) {
        var number = String(Number(day.date.slice(8)));
        var cls = 'day' + (day.date === today ? ' today' : '');
        if (day.slots.length > 0) {
          any = true;
          var button = el('button', { type: 'button', class: cls, 'data-date': day.date, 'aria-pressed': day.date === chosenDate ? 'true' : 'false',
            'aria-label': dateLabel(day.date) + ', ' + plural(strings.available, day.slots.length, lang) }, number);
          button.addEventListener('click', function () { chooseDay(day.date, true); });
          daysBox.appendChild(button);
        } else {
          daysBox.appendChild(el('span', { class: cls, 'aria-hidden': 'true' }, number));
        }
      });
      status.textContent = any ? '' : strings.noDays;
      rove(chosenDate);
      return any;
    }

    /**
     * Roving tabindex, as in the WAI-ARIA grid pattern: one day in the Tab order (the chosen
     * day, else the first free one), the arrow keys move among the free days, Enter or Space
     * chooses. Returns the day button now in the Tab order.
     */
    function rove(date) {
      var buttons = daysBox.querySelectorAll('button[data-date]');
      var current = null;
      Array.prototype.forEach.call(buttons, function (b) { if (b.getAttribute('data-date') === date) current = b; });
      if (!current) current = buttons[0] || null;
      Array.prototype.forEach.call(buttons, function (b) { b.tabIndex = b === current ? 0 : -1; });
      return current;
    }
    /** The date `days` away from `date` (YYYY-MM-DD). */
    function shifted(date, days) {
      var p = date.split('-');
      return new Date(Date.UTC(Number(p[0]), Number(p[1]) - 1, Number(p[2]) + days)).toISOString().slice(0, 10);
    }
    /**
     * Left and right: the free day before or after; up and down: the same weekday a week
     * earlier or later, else the nearest free day beyond it; Home and End: the month's first
     * and last free day.
     */
    daysBox.addEventListener('keydown', function (event) {
      var from = event.target;
      if (!from || !from.getAttribute || from.getAttribute('data-date') === null) return;
      var buttons = Array.prototype.slice.call(daysBox.querySelectorAll('button[data-date]'));
      var date = from.getAttribute('data-date');
      var at = buttons.indexOf(from);
      var to = null;
      if (event.key === 'ArrowRight') to = buttons[at + 1];
      else if (event.key === 'ArrowLeft') to = buttons[at - 1];
      else if (event.key === 'ArrowDown') {
        var later = shifted(date, 7);
        to = buttons.filter(function (b) { return b.getAttribute('data-date') >= later; })[0];
      } else if (event.key === 'ArrowUp') {
        var earlier = shifted(date, -7);
        to = buttons.filter(function (b) { return b.getAttribute('data-date') <= earlier; }).pop();
      } else if (event.key === 'Home') to = buttons[0];
      else if (event.key === 'End') to = buttons[buttons.length - 1];
      else return;
      event.preventDefault();
      if (!to) return;
      rove(to.getAttribute('data-date'));
      to.focus();
    });

    function chooseDay(date, byUser) {
      var day = null;
      days.forEach(function (d) { if (d.date === date) day = d; });
      // No times that day: hide the list and empty it, so no stale buttons linger behind it.
      if (!day || day.slots.length === 0) { times.hidden = true; chosenDate = null; slotsBox.textContent = ''; return; }
      chosenDate = date;
      Array.prototype.forEach.call(daysBox.querySelectorAll('button[data-date]'), function (b) {
        b.setAttribute('aria-pressed', b.getAttribute('data-date') === date ? 'true' : 'false');
      });
      rove(date);
      dayLabel.textContent = dateLabel(date);
      slotsBox.textContent = '';
      day.slots.forEach(function (slot) {
        var label = timeLabel(slot.start);
        var button = el('button', { type: 'button', 'data-start': slot.start, 'aria-pressed': slot.start === chosenStart ? 'true' : 'false' }, label);
        if (slot.username) button.setAttribute('data-username', slot.username);
        // A group topic (seats > 1) says how many can still join each start. The seats are part
        // of the button's text, so the name read out is what is shown (time, then seats: the
        // span is a block, which also parts the two words in the accessible name).
        if (typeof slot.seatsLeft === 'number') {
          button.appendChild(el('span', { class: 'seats' }, plural(strings.seatsLeft, slot.seatsLeft, lang)));
        }
        button.addEventListener('click', function () {
          chosenStart = slot.start;
          chosenSlotDate = date;
          Array.prototype.forEach.call(slotsBox.querySelectorAll('button'), function (b) { b.setAttribute('aria-pressed', b === button ? 'true' : 'false'); });
          options.onSlot(slot, slotLabel(date, slot.start));
        });
        var item = el('li');
        item.appendChild(button);
        slotsBox.appendChild(item);
      });
      times.hidden = false;
      if (byUser) {
        timesHeading.focus({ preventScroll: true });
        // On a phone the times are below the month: bring them up, unless already in sight.
        var top = times.getBoundingClientRect().top;
        if (top < 0 || top > window.innerHeight / 3) {
          var still = window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches;
          times.scrollIntoView({ block: 'start', behavior: still ? 'auto' : 'smooth' });
        }
      }
    }

    function load(autoAdvance, keepDay) {
      var mine = ++token;
      status.textContent = strings.loading;
      daysBox.setAttribute('aria-busy', 'true');
      return options.load(view.year, view.month, zone).then(function (schedule) {
        if (mine !== token) return;
        daysBox.removeAttribute('aria-busy');
        days = schedule.days;
        var any = renderMonth();
        // The first view opens on the first month with a free day (at most two months on).
        if (!any && autoAdvance > 0) { step(1, autoAdvance - 1); return; }
        // Keep the chosen day if it still has times (in a new zone the same date may have none);
        // otherwise open the first day that has some.
        var target = keepDay && chosenDate && days.some(function (d) { return d.date === chosenDate && d.slots.length > 0; }) ? chosenDate : null;
        if (!target && (autoAdvance !== undefined || keepDay)) days.some(function (d) { if (d.slots.length > 0) { target = d.date; return true; } return false; });
        if (target) chooseDay(target, false); else times.hidden = true;
      }, function () {
        if (mine !== token) return;
        daysBox.removeAttribute('aria-busy');
        status.textContent = strings.loadFailed;
      });
    }

    function step(delta, autoAdvance) {
      var m = view.month + delta;
      view = { year: view.year + Math.floor((m - 1) / 12), month: ((m - 1) % 12 + 12) % 12 + 1 };
      chosenDate = null;
      times.hidden = true;
      return load(autoAdvance);
    }

    prev.addEventListener('click', function () { step(-1); });
    next.addEventListener('click', function () { step(1); });

    return {
      start: function () { return load(2); },
      /** After a slot was taken: reload this month, keep the day if it still has times. */
      refresh: function () { chosenStart = null; return load(undefined, true); },
      setZone: function (newZone) {
        zone = newZone;
        chosenStart = null;
        var today = todayIn(zone);
        first = { year: today.year, month: today.month };
        if (view.year < first.year || (view.year === first.year && view.month < first.month)) view = { year: first.year, month: first.month };
        return load(undefined, true);
      },
      zone: function () { return zone; },
      /** After the 12/24-hour switch: the day's times again; the chosen slot's new label, or null. */
      redraw: function () {
        if (chosenDate && !times.hidden) chooseDay(chosenDate, false);
        return chosenStart && chosenSlotDate ? slotLabel(chosenSlotDate, chosenStart) : null;
      },
      timeLabel: timeLabel,
      dateLabel: dateLabel,
    };
  }

  function showAlert(message, kind) {
    var alert = $('alert');
    alert.className = 'alert' + (kind ? ' ' + kind : '');
    alert.textContent = '';
    // A fresh text node in the live region, so the same message is announced again.
    window.setTimeout(function () { alert.textContent = message; }, 30);
  }
  function clearAlert() { $('alert').textContent = ''; }

  function clearFieldErrors(form) {
    Array.prototype.forEach.call(form.querySelectorAll('[aria-invalid]'), function (node) { node.removeAttribute('aria-invalid'); });
    Array.prototype.forEach.call(form.querySelectorAll('.field-error'), function (node) { node.textContent = ''; });
  }

  /** Marks the fields a problem's `errors` point at (`/email`, `/form/company`), first one focused. */
  /**
   * The API writes its problems' details and field messages in English, for integrators: an
   * English page shows them as they are; a page in another language its own words instead.
   */
  function apiWords(lang, text, fallback) {
    return lang === 'en' && text ? text : fallback;
  }
  function markFieldErrors(form, errors, lang, fallback) {
    var firstField = null;
    (errors || []).forEach(function (error) {
      var name = String(error.path || '').replace(/^\//, '').replace(/\//g, '.');
      if (name.indexOf('dates') === 0) return;
      // `/guests/2` is about the one guests field.
      if (name.indexOf('guests.') === 0) name = 'guests';
      var field = form.elements.namedItem(name);
      if (!field) return;
      var node = field.length !== undefined && !field.tagName ? field[0] : field;
      // A multiselect's tick boxes share the error line of their group.
      var group = node.closest ? node.closest('[data-multi]') : null;
      var message = document.getElementById(group ? group.id + '-error' : node.tagName === 'INPUT' && node.type === 'radio' ? 'f-' + name + '-error' : node.id + '-error');
      if (node.type !== 'radio') node.setAttribute('aria-invalid', 'true');
      if (message) message.textContent = lang ? apiWords(lang, error.message, fallback) : error.message;
      if (!firstField) firstField = node;
    });
    if (firstField) firstField.focus();
    return firstField !== null;
  }

  /**
   * Fills the fields from the link's query string, as a CRM's link does:
   * `?name=&email=&phone=&note=&form.<key>=` (a multiselect's choices repeated or comma-separated,
   * a checkbox ticked by `true`). A value the field cannot take is left out, not guessed.
   */
  function prefill(form) {
    var params = new URLSearchParams(window.location.search);
    params.forEach(function (value, key) {
      if (key !== 'name' && key !== 'email' && key !== 'phone' && key !== 'note' && key.indexOf('form.') !== 0) return;
      var field = form.elements.namedItem(key);
      if (!field) return;
      if (form.querySelector('[data-multi="' + key + '"]')) {
        var wanted = params.getAll(key).join(',').split(',').map(function (item) { return item.trim(); });
        Array.prototype.forEach.call(form.querySelectorAll('[data-multi="' + key + '"] input'), function (box) { if (wanted.indexOf(box.value) !== -1) box.checked = true; });
        return;
      }
      if (field.type === 'checkbox') { field.checked = value === 'true' || value === '1' || value === 'on'; return; }
      if (field.tagName === 'SELECT') {
        if (Array.prototype.some.call(field.options, function (option) { return option.value === value; })) field.value = value;
        return;
      }
      field.value = value;
    });
  }

  /** The answer a question has now, as the server compares it (form.ts applicableQuestions). */
  function answerOf(form, key) {
    var group = form.querySelector('[data-multi="form.' + key + '"]');
    if (group) return Array.prototype.filter.call(group.querySelectorAll('input'), function (box) { return box.checked; }).map(function (box) { return box.value; });
    var field = form.elements.namedItem('form.' + key);
    if (!field || field.disabled) return null;
    if (field.type === 'checkbox') return field.checked;
    if (field.type === 'number') return field.value.trim() === '' ? null : Number(field.value);
    return field.value.trim();
  }

  /**
   * Shows a conditional question only while the earlier answer it names has its value; a
   * hidden one is disabled, so it is neither sent nor required. In page order: a condition on
   * a hidden question does not hold.
   */
  function applyConditions(form) {
    Array.prototype.forEach.call(form.querySelectorAll('[data-show-if-key]'), function (wrapper) {
      var key = wrapper.getAttribute('data-show-if-key');
      var equals = JSON.parse(wrapper.getAttribute('data-show-if-equals'));
      var target = form.querySelector('[name="form.' + key + '"]');
      var targetWrapper = target && target.closest('[data-show-if-key]');
      var answer = targetWrapper && targetWrapper.hidden ? null : answerOf(form, key);
      var applies = Array.isArray(answer) ? answer.indexOf(equals) !== -1 : answer === equals;
      wrapper.hidden = !applies;
      var hint = wrapper.querySelector('.show-if-hint');
      if (hint) hint.hidden = true;
      Array.prototype.forEach.call(wrapper.querySelectorAll('input, select, textarea'), function (input) { input.disabled = !applies; });
    });
  }

  // --- the booking page --------------------------------------------------------------------
  function bookingPage(root) {
    var config = JSON.parse(root.getAttribute('data-config'));
    var strings = config.strings;
    var embed = embedding(config);
    var form = $('details');
    var chosen = null;
    var placesReady = {};

    /**
     * A place the slot's host cannot give a link for yet (no connection, no static link)
     * stays bookable: it says the link follows by e-mail, where the account can make rooms.
     */
    function markPlaces(slot) {
      var ready = placesReady[slot.username] || null;
      var single = false;
      Array.prototype.forEach.call(form.querySelectorAll('input[name=place]'), function (input) {
        var pending = ready !== null && ready.indexOf(input.value) === -1 && (config.roomPlaces || []).indexOf(input.value) !== -1;
        if (input.type !== 'radio') { single = pending; return; }
        var label = input.parentNode;
        var mark = label.querySelector('.place-note');
        if (pending && !mark) label.appendChild(el('span', { 'class': 'place-note' }, ' (' + strings.linkFollows + ')'));
        if (!pending && mark) label.removeChild(mark);
      });
      var note = $('place-note');
      if (note) { note.hidden = !single; note.textContent = single ? strings.linkFollows.charAt(0).toUpperCase() + strings.linkFollows.slice(1) + '.' : ''; }
    }
    // The length chosen before the times (a topic with several `durations`): the times are those of that length.
    var duration = config.durationMinutes;
    var checkedDuration = document.querySelector('input[name=duration]:checked');
    if (checkedDuration) duration = Number(checkedDuration.value);
    Array.prototype.forEach.call(document.querySelectorAll('input[name=duration]'), function (input) {
      input.addEventListener('change', function () {
        if (!input.checked) return;
        duration = Number(input.value);
        chosen = null;
        form.hidden = true;
        fitPrices();
        showTotal();
        quoteDiscount();
        calendar.refresh();
      });
    });

    /**
     * Only the price choices of the chosen length: a variant for one length (`data-minutes`)
     * with that length, the topic's own price only with a length that has no variant of its own
     * (the booking then pays that variant), any other variant always. One left: no question asked.
     */
    function fitPrices() {
      var inputs = form.querySelectorAll('input[name=priceVariant]');
      if (inputs.length === 0) return;
      var ownVariant = false;
      Array.prototype.forEach.call(inputs, function (input) { if (input.getAttribute('data-minutes') === String(duration)) ownVariant = true; });
      var first = null;
      var checkedFits = false;
      var shown = 0;
      Array.prototype.forEach.call(inputs, function (input) {
        var minutes = input.getAttribute('data-minutes');
        var fits = minutes ? minutes === String(duration) : !(ownVariant && input.value === '');
        // A disabled choice is neither sent nor validated.
        input.disabled = !fits;
        if (input.type === 'radio') input.parentNode.hidden = !fits;
        if (!fits) return;
        shown += 1;
        if (!first) first = input;
        if (input.checked) checkedFits = true;
      });
      if (first && !checkedFits && first.type === 'radio') first.checked = true;
      var group = inputs[0].closest('fieldset');
      if (group) group.hidden = shown <= 1;
    }
    fitPrices();
    prefill(form);
    applyConditions(form);
    form.addEventListener('change', function () { applyConditions(form); });
    form.addEventListener('input', function () { applyConditions(form); });
    var zone = isZone(config.timezone) ? config.timezone : (Intl.DateTimeFormat().resolvedOptions().timeZone || config.fallbackTimezone);
    if (!isZone(zone)) zone = config.fallbackTimezone;

    var calendar = Calendar({
      lang: config.lang,
      strings: strings,
      zone: zone,
      ids: { days: 'days', status: 'cal-status', monthLabel: 'month-label', prev: 'prev-month', next: 'next-month', times: 'times', slots: 'slots', dayLabel: 'day-label', timesHeading: 'h-time', weekdays: 'weekdays' },
      load: function (year, month, tz) {
        var body = { meetingTopic: config.topic, timezone: tz, offset: 0, month: month, year: year };
        if (duration !== config.durationMinutes) body.duration = duration;
        if (config.username) body.username = config.username;
        if (config.team) body.team = config.team;
        return postJson(API + '/calculate-schedule', body, config.lang).then(function (r) {
          if (r.status !== 200) throw new Error('schedule ' + r.status);
          placesReady = r.data.placesReady || {};
          return r.data;
        });
      },
      onSlot: function (slot, label) {
        chosen = slot;
        markPlaces(slot);
        clearAlert();
        $('selected-label').textContent = label;
        form.hidden = false;
        $('h-details').focus();
      },
    });
    var picker = zonePicker({
      input: $('tz'),
      listbox: $('tz-options'),
      error: $('tz-error'),
      lang: config.lang,
      strings: strings,
      initial: zone,
      linkError: config.timezoneError,
      now: $('tz-now'),
      onChange: function (newZone) {
        zone = newZone;
        chosen = null;
        form.hidden = true;
        calendar.setZone(newZone);
      },
    });
    hourSwitch(config.lang, function () {
      var label = calendar.redraw();
      if (label && chosen) $('selected-label').textContent = label;
      picker.refresh();
    });

    /** "Continue to payment · 150,00 zł" for the chosen price; a discount is taken off at payment. */
    var submitButton = $('submit');
    function showTotal() {
      if (!config.paid) return;
      var variant = chosenVariant();
      var total = (config.totals || {})[variant];
      var discount = form.elements.namedItem('discount');
      var code = discount ? discount.value.trim() : '';
      var text = submitButton.getAttribute('data-label');
      // The server's quote for exactly this code and price, once it came; until then the price before it.
      if (quoted && quoted.code === code && quoted.variant === variant && quoted.duration === duration) text += ' \u00b7 ' + quoted.total;
      else if (total) text += ' \u00b7 ' + total + (code ? ' (' + strings.beforeDiscount + ')' : '');
      // Only on a real change: a field's `change` fires as the button is pressed, and
      // replacing the button's text between mousedown and mouseup loses that click.
      if (submitButton.textContent !== text) submitButton.textContent = text;
    }
    /** The price choice sent with the booking: '' for the topic's own price (or one that does not fit the length). */
    function chosenVariant() {
      var choice = form.querySelector('input[name=priceVariant]:checked:not(:disabled), input[type=hidden][name=priceVariant]:not(:disabled)');
      return choice ? choice.value : '';
    }
    form.addEventListener('change', showTotal);
    form.addEventListener('input', showTotal);
    showTotal();

    /** A phone call with no number of the host's: the host calls, so the participant's number is required while that place is chosen. */
    function syncPhone() {
      var phone = form.elements.namedItem('phone');
      if (!phone || !config.phoneCallNeedsNumber) return;
      var place = form.elements.namedItem('place');
      var needed = (place ? place.value : '') === 'phone-call';
      phone.required = needed;
      var mark = form.querySelector('label[for=' + phone.id + '] .opt');
      if (mark) mark.hidden = needed;
    }
    form.addEventListener('change', function (event) { if (event.target && event.target.name === 'place') syncPhone(); });
    syncPhone();

    /** Asks the server what a typed discount code takes off (POST /public/quote), when the field is left or the price changes. */
    var quoted = null;
    var quoteSeq = 0;
    function money(amount) {
      var format = new Intl.NumberFormat(locale(config.lang), { style: 'currency', currency: amount.currency });
      return format.format(amount.amount / 10 ** (format.resolvedOptions().maximumFractionDigits || 0));
    }
    function quoteDiscount() {
      var discount = form.elements.namedItem('discount');
      if (!config.paid || !discount) return;
      var code = discount.value.trim();
      var status = $('discount-status');
      var error = $(discount.id + '-error');
      var variant = chosenVariant();
      var seq = ++quoteSeq;
      discount.removeAttribute('aria-invalid');
      error.textContent = '';
      status.textContent = '';
      if (!code) { quoted = null; showTotal(); return; }
      var body = { meetingTopic: config.topic, discount: code };
      if (variant) body.priceVariant = variant;
      // The chosen length's price, as the booking charges it.
      var asked = duration;
      if (asked !== config.durationMinutes) body.duration = asked;
      postJson(API + '/public/quote', body, config.lang).then(function (r) {
        if (seq !== quoteSeq) return;
        if (r.status === 200 && r.data.total) {
          quoted = { code: code, variant: variant, duration: asked, total: money(r.data.total) };
          status.textContent = strings.discountApplied.replace('{code}', r.data.discount.code).replace('{price}', money(r.data.price)).replace('{total}', quoted.total);
        } else if (r.data && r.data.code === 'DISCOUNT_INVALID') {
          quoted = null;
          discount.setAttribute('aria-invalid', 'true');
          error.textContent = strings.discountInvalid;
        }
        showTotal();
      });
    }
    if (form.elements.namedItem('discount')) {
      form.elements.namedItem('discount').addEventListener('change', quoteDiscount);
      form.addEventListener('change', function (event) { if (event.target && event.target.name === 'priceVariant') quoteDiscount(); });
    }

    $('change-time').addEventListener('click', function () {
      form.hidden = true;
      var pressed = document.querySelector('#slots button[aria-pressed=true]') || $('h-time');
      pressed.focus();
    });

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (!chosen) return;
      clearAlert();
      clearFieldErrors(form);
      var data = new FormData(form);
      var body = { dates: [{ start: chosen.start, username: chosen.username }], meetingTopic: config.topic, timezone: zone, lang: config.lang, locale: messageLocale(config.lang), form: {} };
      if (config.team) body.team = config.team;
      if (config.singleUseToken) body.singleUseToken = config.singleUseToken;
      if (duration !== config.durationMinutes) body.duration = duration;
      data.forEach(function (value, key) {
        value = String(value);
        if (key === 'website') { body.website = value; return; }
        if (key === 'guests') {
          var guests = value.split(/[\s,;]+/).filter(function (guest) { return guest !== ''; });
          if (guests.length > 0) body.guests = guests;
          return;
        }
        if (key.indexOf('form.') === 0) {
          var answerKey = key.slice(5);
          // A multiselect's ticked boxes answer as an array of their values.
          if (form.querySelector('[data-multi="' + key + '"]')) {
            if (!body.form[answerKey]) body.form[answerKey] = [];
            body.form[answerKey].push(value);
            return;
          }
          // A ticked checkbox answers true; an unticked one is left out (the server treats it as not ticked).
          var input = form.elements.namedItem(key);
          if (input && input.type === 'checkbox') { body.form[answerKey] = true; return; }
          if (input && input.type === 'number' && value.trim() !== '') { body.form[answerKey] = Number(value); return; }
          if (value.trim() !== '') body.form[answerKey] = value;
          return;
        }
        if (value.trim() !== '') body[key] = value;
      });
      var submit = $('submit');
      var label = submit.textContent;
      submit.disabled = true;
      submit.textContent = strings.sending;
      postJson(API + '/public/schedule', body, config.lang).then(function (r) {
        submit.disabled = false;
        submit.textContent = label;
        if (r.status === 201) return booked(r.data, body);
        var code = r.data && r.data.code;
        if (code === 'SLOT_UNAVAILABLE') {
          chosen = null;
          form.hidden = true;
          showAlert(strings.slotTaken);
          calendar.refresh().then(function () { ($('h-time').closest('[hidden]') ? $('h-day') : $('h-time')).focus(); });
          return;
        }
        if (code === 'DISCOUNT_INVALID') {
          markFieldErrors(form, [{ path: '/discount', message: strings.discountInvalid }]);
          showAlert(strings.discountInvalid);
          return;
        }
        if (code === 'VALIDATION_FAILED' && markFieldErrors(form, r.data.errors, config.lang, strings.fieldInvalid)) { showAlert(strings.fixErrors); return; }
        if (r.status === 429) { showAlert(strings.rateLimited); return; }
        if (code === 'LINK_GONE') { form.hidden = true; showAlert(strings.onceGone); return; }
        showAlert(apiWords(config.lang, r.data && r.data.detail, strings.failed));
      }, function () {
        submit.disabled = false;
        submit.textContent = label;
        showAlert(strings.failed);
      });
    });

    function booked(result, body) {
      if (embed) embed.post({ type: 'termin:booked', meetings: result.meetings, payment: result.payment });
      $('step-time').hidden = true;
      form.hidden = true;
      var done = $('done');
      var meeting = result.meetings[0];
      // A request (the topic requires approval) awaits the host: nothing to pay yet.
      var requested = meeting && meeting.status === 'pending_approval';
      var payment = requested ? null : result.payment;
      $('h-done').textContent = requested ? strings.requestedTitle : payment ? strings.payingTitle : strings.bookedTitle;
      var text = $('done-text');
      text.textContent = payment ? strings.payingText : (requested ? strings.requestedText : strings.bookedText).replace('{email}', body.email);
      // A place whose room is not made yet (no link in the answer): its link follows, as the confirmation says.
      if (meeting && !payment && !requested && !(meeting.location && meeting.location.url) && (config.roomPlaces || []).indexOf(meeting.place) !== -1) {
        text.appendChild(document.createTextNode(' ' + strings.linkFollows.charAt(0).toUpperCase() + strings.linkFollows.slice(1) + '.'));
      }
      var details = $('done-details');
      details.textContent = '';
      if (meeting) {
        details.appendChild(el('dt', null, strings.when));
        details.appendChild(el('dd', null, $('selected-label').textContent));
        // The length booked, as its record says.
        if (meeting.durationMinutes) {
          details.appendChild(el('dt', null, strings.duration));
          details.appendChild(el('dd', null, meeting.durationMinutes + ' ' + strings.minutes));
        }
      }
      done.hidden = false;
      $('h-done').focus();
      // The whole booking (end, host, join link or address, price, calendar links, manage
      // link) as the manage page draws it; until it arrives, or if it cannot, the start above.
      var manageUrl = !payment && result.manageUrls && result.manageUrls[0];
      if (manageUrl) {
        var path = new URL(manageUrl, window.location.href).pathname + '?lang=' + encodeURIComponent(config.lang);
        fetch(path, { credentials: 'omit', headers: { accept: 'text/html' } }).then(function (response) {
          return response.ok ? response.text() : null;
        }).then(function (page) {
          var summary = page && new DOMParser().parseFromString(page, 'text/html').getElementById('booking-summary');
          if (!summary) return;
          Array.prototype.forEach.call(summary.querySelectorAll('a[target=_blank], #manage-link'), function (a) { if (embed) a.setAttribute('target', '_blank'); });
          var imported = document.importNode(summary, true);
          redrawWhen(imported, config.lang);
          details.parentNode.replaceChild(imported, details);
        }).catch(function () { /* the start stays shown; the e-mail carries the rest */ });
      }
      if (payment && payment.redirectUrl) {
        var link = el('a', { href: payment.redirectUrl, target: embed ? '_top' : null }, strings.payLink);
        text.appendChild(document.createTextNode(' '));
        text.appendChild(link);
        // In the embed the host page navigates itself (embed.js); standalone we go on at once.
        if (!embed) window.location.assign(payment.redirectUrl);
      }
    }

    calendar.start();
  }

  // --- the manage page ---------------------------------------------------------------------
  function managePage(root) {
    var config = JSON.parse(root.getAttribute('data-config'));
    var strings = config.strings;
    var base = API + '/public/bookings/' + encodeURIComponent(config.token);
    var zone = config.timezone;
    redrawWhen(root, config.lang);

    var cancelForm = $('cancel-form');
    if (cancelForm) cancelForm.addEventListener('submit', function (event) {
      event.preventDefault();
      clearAlert();
      var reason = String(new FormData(cancelForm).get('reason') || '').trim();
      var button = cancelForm.querySelector('button[type=submit]');
      button.disabled = true;
      postJson(base + '/cancel', reason ? { reason: reason } : {}, config.lang).then(function (r) {
        button.disabled = false;
        if (r.status === 200) { finish(strings.cancelled); return; }
        problem(r);
      }, function () { button.disabled = false; showAlert(strings.failed); });
    });

    var moveBox = $('move');
    var calendar = null;
    var chosen = null;
    if (moveBox) {
      var moveForm = $('move-form');
      calendar = Calendar({
        lang: config.lang,
        strings: strings,
        zone: zone,
        ids: { days: 'days', status: 'cal-status', monthLabel: 'month-label', prev: 'prev-month', next: 'next-month', times: 'times', slots: 'slots', dayLabel: 'day-label', timesHeading: 'h-time', weekdays: 'weekdays' },
        load: function (year, month, tz) {
          return postJson(base + '/calculate-schedule', { timezone: tz, offset: 0, month: month, year: year }, config.lang).then(function (r) {
            if (r.status !== 200) throw new Error('schedule ' + r.status);
            return r.data;
          });
        },
        onSlot: function (slot, label) {
          chosen = slot;
          clearAlert();
          $('selected-label').textContent = label;
          moveForm.hidden = false;
          $('move-submit').focus();
        },
      });
      moveForm.addEventListener('submit', function (event) {
        event.preventDefault();
        if (!chosen) return;
        clearAlert();
        var button = $('move-submit');
        button.disabled = true;
        var body = { start: chosen.start };
        if (chosen.username) body.username = chosen.username;
        postJson(base + '/reschedule', body, config.lang).then(function (r) {
          button.disabled = false;
          if (r.status === 200) { finish(strings.moved); return; }
          if (r.data && r.data.code === 'SLOT_UNAVAILABLE') {
            chosen = null;
            moveForm.hidden = true;
            showAlert(strings.slotTaken);
            calendar.refresh();
            return;
          }
          problem(r);
        }, function () { button.disabled = false; showAlert(strings.failed); });
      });
      calendar.start();
    }
    hourSwitch(config.lang, function () {
      redrawWhen(root, config.lang);
      if (!calendar) return;
      var label = calendar.redraw();
      if (label && chosen) $('selected-label').textContent = label;
    });

    function problem(r) {
      if (r.status === 429) showAlert(strings.rateLimited);
      else showAlert(apiWords(config.lang, r.data && r.data.detail, strings.failed));
    }

    /**
     * After a move or cancel the whole page is drawn again by the server (when, status, the
     * deadline line, which sections the meeting still allows): patching a few nodes here
     * left stale deadlines and lost sections. Falls back to a plain reload.
     */
    function finish(message) {
      fetch(window.location.href, { credentials: 'omit', headers: { accept: 'text/html' }, cache: 'no-store' }).then(function (response) {
        if (!response.ok) throw new Error('page ' + response.status);
        return response.text();
      }).then(function (text) {
        var fresh = new DOMParser().parseFromString(text, 'text/html').getElementById('manage');
        if (!fresh) throw new Error('no manage page');
        var replacement = document.importNode(fresh, true);
        root.parentNode.replaceChild(replacement, root);
        managePage(replacement);
        showAlert(message, 'info');
        $('h-manage').focus();
      }).catch(function () { window.location.reload(); });
    }
  }

  var booking = document.getElementById('booking');
  if (booking) bookingPage(booking);
  var manage = document.getElementById('manage');
  if (manage) managePage(manage);
})();
