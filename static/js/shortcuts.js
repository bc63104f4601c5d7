/* Keyboard shortcuts and time on item, shared by the labeling and adjudication pages. No
 * libraries; every page works without it (plain form POSTs), this only makes it faster.
 * A page calls ArbiterShortcuts.install({...}) with:
 *   formId        the form that Enter (or Ctrl+Enter inside a text box) submits
 *   choose(n)     what 1 / 2 / 3 do
 *   reasonKey     a key that asks for a reason, puts it in #reasonFormId's `reason` and sends it
 *   enterSkip     a selector of targets whose own Enter must be left alone
 */
(function () {
  "use strict";

  function send(form) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }

  function isTyping(target) {
    if (!target || !target.closest) return false;
    return !!target.closest(
      'textarea, select, [contenteditable=""], [contenteditable="true"], ' +
        'input:not([type]), input[type="text"], input[type="search"], input[type="number"]'
    );
  }

  // The page-load time; kept when htmx re-renders a form after an error (the server echoes it).
  function stamp(root) {
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll('input[name="page_loaded_at"]').forEach(function (input) {
      if (!input.value) input.value = String(Date.now());
    });
  }

  function askReason(options) {
    var form = document.getElementById(options.reasonFormId);
    if (!form) return;
    var reason = window.prompt(options.reasonQuestion);
    if (reason === null) return;
    if (!reason.trim()) {
      window.alert(options.reasonMissing);
      return;
    }
    form.querySelector('input[name="reason"]').value = reason.trim();
    send(form);
  }

  function install(options) {
    document.addEventListener("keydown", function (event) {
      var form = document.getElementById(options.formId);
      if (!form || event.defaultPrevented || event.isComposing) return;
      var target = event.target;
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        if (form.contains(target) || !isTyping(target)) {
          event.preventDefault();
          send(form);
        }
        return;
      }
      if (isTyping(target) || event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.key === "1" || event.key === "2" || event.key === "3") {
        options.choose(form, Number(event.key));
      } else if (event.key === "t") {
        var tag = form.querySelector('#tags input[type="checkbox"]');
        if (tag) tag.focus();
      } else if (event.key === options.reasonKey) {
        askReason(options);
      } else if (event.key === "Enter") {
        // Buttons, links and <summary> keep their own Enter, and so do the page's other forms.
        if (target.closest && target.closest("button, a, summary, " + options.enterSkip)) return;
        send(form);
      } else {
        return;
      }
      event.preventDefault();
    });

    // Capture phase: runs before htmx reads the form, so the value travels with the request.
    document.addEventListener(
      "submit",
      function (event) {
        var field = event.target && event.target.querySelector('input[name="submitted_at"]');
        if (field) field.value = String(Date.now());
      },
      true
    );
    document.addEventListener("DOMContentLoaded", function () {
      stamp(document);
    });
    document.addEventListener("htmx:load", function (event) {
      stamp(event.target);
    });
    stamp(document);
  }

  function check(radio) {
    if (!radio) return;
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));
  }

  window.ArbiterShortcuts = { install: install, check: check };
})();
