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
  function locale(lang) { return lang === 'pl' ? 'pl-PL' : 'en-GB'; }

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

  // --- the time-zone picker: a text input over a datalist of every IANA zone --------------
  function zonePicker(input, list, initial, onChange) {
    input.value = initial;
    var filled = false;
    function fill() {
      if (filled) return;
      filled = true;
      var zones = (Intl.supportedValuesOf ? Intl.supportedValuesOf('timeZone') : [initial]).slice();
      if (zones.indexOf('UTC') < 0) zones.push('UTC');
      var fragment = document.createDocumentFragment();
      zones.forEach(function (zone) { fragment.appendChild(el('option', { value: zone })); });
      list.appendChild(fragment);
    }
    input.addEventListener('focus', fill);
    input.addEventListener('input', fill);
    var current = initial;
    function commit() {
      var value = input.value.trim();
      if (value === current) return;
      if (isZone(value)) {
        current = value;
        input.removeAttribute('aria-invalid');
        onChange(value);
      }
    }
    input.addEventListener('change', commit);
    input.addEventListener('input', function () { if (list.querySelector('option[value="' + CSS.escape(input.value) + '"]')) commit(); });
    input.addEventListener('blur', function () { if (!isZone(input.value.trim())) input.value = current; });
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

    function timeLabel(start) {
      return new Intl.DateTimeFormat(locale(lang), { hour: '2-digit', minute: '2-digit', timeZone: zone }).format(new Date(start));
    }
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
            'aria-label': dateLabel(day.date) + ', ' + day.slots.length + ' ' + strings.available }, number);
          button.addEventListener('click', function () { chooseDay(day.date, true); });
          daysBox.appendChild(button);
        } else {
          daysBox.appendChild(el('span', { class: cls, 'aria-hidden': 'true' }, number));
        }
      });
      status.textContent = any ? '' : strings.noDays;
      return any;
    }

    function chooseDay(date, byUser) {
      var day = null;
      days.forEach(function (d) { if (d.date === date) day = d; });
      // No times that day: hide the list and empty it, so no stale buttons linger behind it.
      if (!day || day.slots.length === 0) { times.hidden = true; chosenDate = null; slotsBox.textContent = ''; return; }
      chosenDate = date;
      Array.prototype.forEach.call(daysBox.querySelectorAll('button[data-date]'), function (b) {
        b.setAttribute('aria-pressed', b.getAttribute('data-date') === date ? 'true' : 'false');
      });
      dayLabel.textContent = dateLabel(date);
      slotsBox.textContent = '';
      day.slots.forEach(function (slot) {
        var label = timeLabel(slot.start);
        var button = el('button', { type: 'button', 'data-start': slot.start, 'aria-pressed': slot.start === chosenStart ? 'true' : 'false' }, label);
        if (slot.username) button.setAttribute('data-username', slot.username);
        button.addEventListener('click', function () {
          chosenStart = slot.start;
          Array.prototype.forEach.call(slotsBox.querySelectorAll('button'), function (b) { b.setAttribute('aria-pressed', b === button ? 'true' : 'false'); });
          options.onSlot(slot, dateLabel(date) + ', ' + label + ' (' + zone.replace(/_/g, ' ') + ')');
        });
        var item = el('li');
        item.appendChild(button);
        slotsBox.appendChild(item);
      });
      times.hidden = false;
      if (byUser) timesHeading.focus();
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
  function markFieldErrors(form, errors) {
    var firstField = null;
    (errors || []).forEach(function (error) {
      var name = String(error.path || '').replace(/^\//, '').replace(/\//g, '.');
      if (name.indexOf('dates') === 0) return;
      var field = form.elements.namedItem(name);
      if (!field) return;
      var node = field.length !== undefined && !field.tagName ? field[0] : field;
      var message = document.getElementById(node.tagName === 'INPUT' && node.type === 'radio' ? 'f-' + name + '-error' : node.id + '-error');
      if (node.type !== 'radio') node.setAttribute('aria-invalid', 'true');
      if (message) message.textContent = error.message;
      if (!firstField) firstField = node;
    });
    if (firstField) firstField.focus();
    return firstField !== null;
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
    var zone = isZone(config.timezone) ? config.timezone : (Intl.DateTimeFormat().resolvedOptions().timeZone || config.fallbackTimezone);
    if (!isZone(zone)) zone = config.fallbackTimezone;

    var calendar = Calendar({
      lang: config.lang,
      strings: strings,
      zone: zone,
      ids: { days: 'days', status: 'cal-status', monthLabel: 'month-label', prev: 'prev-month', next: 'next-month', times: 'times', slots: 'slots', dayLabel: 'day-label', timesHeading: 'h-time', weekdays: 'weekdays' },
      load: function (year, month, tz) {
        var body = { meetingTopic: config.topic, timezone: tz, offset: 0, month: month, year: year };
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
    zonePicker($('tz'), $('tz-list'), zone, function (newZone) {
      zone = newZone;
      chosen = null;
      form.hidden = true;
      calendar.setZone(newZone);
    });
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
      var body = { dates: [{ start: chosen.start, username: chosen.username }], meetingTopic: config.topic, timezone: zone, lang: config.lang, form: {} };
      if (config.team) body.team = config.team;
      data.forEach(function (value, key) {
        value = String(value);
        if (key === 'website') { body.website = value; return; }
        if (key.indexOf('form.') === 0) {
          // A ticked checkbox answers true; an unticked one is left out (the server treats it as not ticked).
          var input = form.elements.namedItem(key);
          if (input && input.type === 'checkbox') { body.form[key.slice(5)] = true; return; }
          if (value.trim() !== '') body.form[key.slice(5)] = value;
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
        if (code === 'VALIDATION_FAILED' && markFieldErrors(form, r.data.errors)) { showAlert(strings.fixErrors); return; }
        if (r.status === 429) { showAlert(strings.rateLimited); return; }
        showAlert((r.data && r.data.detail) || strings.failed);
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
      text.textContent = payment ? strings.payingText : (requested ? strings.requestedText : strings.bookedText) + ' ' + body.email + '.';
      var details = $('done-details');
      details.textContent = '';
      if (meeting) {
        details.appendChild(el('dt', null, strings.when));
        details.appendChild(el('dd', null, $('selected-label').textContent));
      }
      done.hidden = false;
      $('h-done').focus();
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

    var cancelForm = $('cancel-form');
    if (cancelForm) cancelForm.addEventListener('submit', function (event) {
      event.preventDefault();
      clearAlert();
      var reason = String(new FormData(cancelForm).get('reason') || '').trim();
      var button = cancelForm.querySelector('button[type=submit]');
      button.disabled = true;
      postJson(base + '/cancel', reason ? { reason: reason } : {}, config.lang).then(function (r) {
        button.disabled = false;
        if (r.status === 200) { finish(strings.cancelled, r.data); return; }
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
          if (r.status === 200) { finish(strings.moved, r.data); return; }
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

    function problem(r) {
      if (r.status === 429) showAlert(strings.rateLimited);
      else showAlert((r.data && r.data.detail) || strings.failed);
    }

    function finish(message, data) {
      var meeting = data && (data.meeting || data);
      if (meeting && meeting.start) {
        var when = $('when');
        if (when) when.textContent = new Intl.DateTimeFormat(locale(config.lang), { dateStyle: 'full', timeStyle: 'short', timeZone: zone }).format(new Date(meeting.start));
        var status = $('status');
        if (status && meeting.status && strings['status_' + meeting.status]) status.textContent = strings['status_' + meeting.status];
      }
      ['cancel', 'move'].forEach(function (id) { var node = $(id); if (node) node.hidden = true; });
      showAlert(message, 'info');
      var heading = $('h-manage');
      if (heading) heading.focus();
    }
  }

  var booking = document.getElementById('booking');
  if (booking) bookingPage(booking);
  var manage = document.getElementById('manage');
  if (manage) managePage(manage);
})();
