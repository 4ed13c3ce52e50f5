// termin host app: small progressive touches; every page works without this file.
(function () {
  'use strict';
  // The navigation folds behind "Menu" on narrow screens (app.css); Escape closes it again.
  var menu = document.querySelector('nav.app-menu');
  var toggle = menu && menu.querySelector('button.menu-toggle');
  if (toggle) {
    var setOpen = function (open) {
      toggle.setAttribute('aria-expanded', String(open));
      menu.classList.toggle('open', open);
    };
    menu.classList.add('collapsible');
    toggle.hidden = false;
    toggle.addEventListener('click', function () { setOpen(toggle.getAttribute('aria-expanded') !== 'true'); });
    menu.addEventListener('keydown', function (event) {
      if (event.key === 'Escape' && toggle.getAttribute('aria-expanded') === 'true') {
        setOpen(false);
        toggle.focus();
      }
    });
  }
  // "Copy link" buttons appear only where the clipboard can be written.
  if (navigator.clipboard) {
    document.querySelectorAll('button.copy-link[data-copy]').forEach(function (button) {
      button.hidden = false;
      button.addEventListener('click', function () {
        var input = document.getElementById(button.getAttribute('data-copy'));
        if (!input) return;
        navigator.clipboard.writeText(input.value).then(function () {
          button.setAttribute('aria-live', 'polite');
          button.dataset.label = button.dataset.label || button.textContent;
          var said = document.querySelector('[data-copied]');
          button.textContent = said ? said.getAttribute('data-copied') : button.dataset.label;
          setTimeout(function () { button.textContent = button.dataset.label; }, 2000);
          // The checklist's copy counts as sharing the link: the button's form says so to the server.
          if (button.hasAttribute('data-then-submit') && button.form) button.form.submit();
        });
      });
    });
  }
  // Availability: "Add hours on …", "Remove" and "Copy Monday to all weekdays" change the rows in
  // the page, unsaved, as the server's round trip does without a script; "Save" still posts.
  var hours = document.getElementById('availability-form');
  if (hours) {
    var nextEnd = function (end) {
      if (end >= '23:00') return '23:59';
      return String(Number(end.slice(0, 2)) + 1).padStart(2, '0') + end.slice(2);
    };
    // Names, accessible names and Remove values follow the rows' order: "Monday from", "Monday from 2"…
    var renumber = function (fieldset) {
      var day = fieldset.getAttribute('data-day');
      var rows = fieldset.querySelectorAll('.hours-row');
      rows.forEach(function (row, i) {
        var suffix = i === 0 ? '' : ' ' + (i + 1);
        row.id = 'row-' + day + '-' + i;
        ['start', 'end'].forEach(function (edge) {
          var input = row.querySelector('input[name$=".' + edge + '"]');
          var name = fieldset.getAttribute(edge === 'start' ? 'data-from' : 'data-to') + suffix;
          input.name = day + '.' + i + '.' + edge;
          input.setAttribute('aria-label', name);
          input.parentNode.firstChild.nodeValue = name;
        });
        row.querySelector('button[name="op"]').value = 'remove:' + day + ':' + i;
      });
      fieldset.querySelector('.no-hours').hidden = rows.length > 0;
    };
    var addRow = function (fieldset, start, end) {
      var row = document.createElement('div');
      row.className = 'hours-row';
      ['start', 'end'].forEach(function (edge, i) {
        var label = document.createElement('label');
        label.appendChild(document.createTextNode(''));
        var input = document.createElement('input');
        input.type = 'time';
        input.name = 'x.' + edge;
        input.value = i === 0 ? start : end;
        label.appendChild(input);
        row.appendChild(label);
        row.appendChild(document.createTextNode('\n'));
      });
      var remove = document.createElement('button');
      remove.type = 'submit';
      remove.name = 'op';
      remove.className = 'link';
      remove.textContent = hours.getAttribute('data-remove');
      row.appendChild(remove);
      fieldset.insertBefore(row, fieldset.querySelector('button.add-hours'));
      renumber(fieldset);
      return row;
    };
    var say = function (message) {
      var status = document.getElementById('hours-status');
      if (!status) {
        status = document.createElement('p');
        status.id = 'hours-status';
        status.className = 'notice';
        status.setAttribute('role', 'status');
        hours.parentNode.insertBefore(status, hours);
      }
      status.textContent = message;
    };
    hours.addEventListener('click', function (event) {
      var button = event.target.closest('button[name="op"]');
      if (!button) return;
      var op = button.value.split(':');
      var fieldset = button.closest('fieldset.weekday');
      if (op[0] === 'add' && fieldset) {
        event.preventDefault();
        var rows = fieldset.querySelectorAll('.hours-row');
        var last = rows.length > 0 ? rows[rows.length - 1].querySelector('input[name$=".end"]').value : '';
        var row = last ? addRow(fieldset, last, nextEnd(last)) : addRow(fieldset, '09:00', '17:00');
        row.querySelector('input').focus();
      } else if (op[0] === 'remove' && fieldset) {
        event.preventDefault();
        var next = button.closest('.hours-row');
        next.parentNode.removeChild(next);
        renumber(fieldset);
        fieldset.querySelector('button.add-hours').focus();
      } else if (op[0] === 'copy-monday') {
        event.preventDefault();
        var monday = Array.prototype.map.call(document.querySelectorAll('#day-monday .hours-row'), function (row) {
          return [row.querySelector('input[name$=".start"]').value, row.querySelector('input[name$=".end"]').value];
        });
        ['tuesday', 'wednesday', 'thursday', 'friday'].forEach(function (day) {
          var target = document.getElementById('day-' + day);
          target.querySelectorAll('.hours-row').forEach(function (row) { row.parentNode.removeChild(row); });
          monday.forEach(function (times) { addRow(target, times[0], times[1]); });
          renumber(target);
        });
        say(hours.getAttribute('data-copied'));
      }
    });
  }
})();
