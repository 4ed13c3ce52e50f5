// termin host app: small progressive touches; every page works without this file.
(function () {
  'use strict';
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
          button.textContent = document.documentElement.lang === 'pl' ? 'Skopiowano' : 'Copied';
          setTimeout(function () { button.textContent = button.dataset.label; }, 2000);
          // The checklist's copy counts as sharing the link: the button's form says so to the server.
          if (button.hasAttribute('data-then-submit') && button.form) button.form.submit();
        });
      });
    });
  }
})();
