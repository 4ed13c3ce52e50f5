// termin embed: <script src="https://termin.example/embed.js" data-termin-booking="https://termin.example/book/anna/…"></script>
// or <div data-termin-booking="…"></div> plus the script anywhere on the page.
// Inserts the booking page in an iframe sized to its content. The page posts its height and,
// when booked, { type: "termin:booked", meetings, payment } to this page's origin; messages
// are taken only from the iframe's own window and origin. A paid booking continues at its
// payment page in the top window unless the element says data-termin-redirect="false".
(function () {
  'use strict';
  var script = document.currentScript;
  var base = script && script.src ? script.src : window.location.href;
  // The frame's name for screen readers in the booking page's language (?lang=) or this page's; the server fills in the table (locales/*/pages.json, embedTitle).
  var TITLES = /*TITLES*/ { en: 'Booking' };
  function titleIn(lang) {
    var code = String(lang).toLowerCase().split('-')[0];
    return TITLES[code] || TITLES.en;
  }

  function mount(target, after) {
    if (target.getAttribute('data-termin-mounted')) return;
    target.setAttribute('data-termin-mounted', 'true');
    var url;
    try { url = new URL(target.getAttribute('data-termin-booking'), base); } catch (e) { return; }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return;
    url.searchParams.set('embed', window.location.origin);
    var frame = document.createElement('iframe');
    frame.src = url.toString();
    frame.title = target.getAttribute('data-termin-title') || titleIn(url.searchParams.get('lang') || document.documentElement.lang || '');
    frame.setAttribute('loading', 'lazy');
    frame.style.width = '100%';
    frame.style.border = '0';
    frame.style.display = 'block';
    frame.style.height = '720px';
    if (after) target.parentNode.insertBefore(frame, target.nextSibling);
    else target.appendChild(frame);

    window.addEventListener('message', function (event) {
      if (event.source !== frame.contentWindow || event.origin !== url.origin) return;
      var data = event.data;
      if (!data || typeof data.type !== 'string') return;
      if (data.type === 'termin:height' && typeof data.height === 'number' && data.height > 0) {
        frame.style.height = Math.min(Math.ceil(data.height), 20000) + 'px';
      } else if (data.type === 'termin:booked') {
        var detail = { meetings: data.meetings, payment: data.payment };
        target.dispatchEvent(new CustomEvent('termin:booked', { detail: detail, bubbles: true }));
        var payment = data.payment;
        if (payment && typeof payment.redirectUrl === 'string' && target.getAttribute('data-termin-redirect') !== 'false') {
          var next = new URL(payment.redirectUrl);
          if (next.origin === url.origin) window.location.assign(next.toString());
        }
      }
    });
  }

  if (script && script.hasAttribute('data-termin-booking')) mount(script, true);
  function scan() {
    var nodes = document.querySelectorAll('[data-termin-booking]:not(script)');
    for (var i = 0; i < nodes.length; i++) mount(nodes[i], false);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', scan);
  else scan();
})();
