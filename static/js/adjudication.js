/* Adjudication page: keyboard shortcuts and time on item, as on the labeling page. No
 * libraries; the page works without this file (plain form POSTs).
 *   1 / 2 / 3  pairs: first / second / tie; other kinds: the 1st / 2nd / 3rd label to accept
 *   t          focus the critical-failure tags
 *   Enter      save the decision (Ctrl+Enter inside the reason box)
 *   d          discard (asks for a reason)
 */
(function () {
  "use strict";

  function finalForm() {
    return document.getElementById("final-form");
  }

  function stamp() {
    document.querySelectorAll('input[name="page_loaded_at"]').forEach(function (input) {
      if (!input.value) input.value = String(Date.now());
    });
  }

  function send(form) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }

  function pick(number) {
    var form = finalForm();
    if (!form) return;
    var radio;
    if (form.querySelector('input[name="preferred"]')) {
      var value = { 1: "first", 2: "second", 3: "tie" }[number];
      radio = form.querySelector('input[name="preferred"][value="' + value + '"]');
    } else {
      radio = form.querySelectorAll('input[name="accept"]')[number - 1];
    }
    if (radio) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  function discard() {
    var form = document.getElementById("discard-form");
    if (!form) return;
    var reason = window.prompt("Why is this item discarded?");
    if (reason === null) return;
    if (!reason.trim()) {
      window.alert("Discarding needs a reason.");
      return;
    }
    form.querySelector('input[name="reason"]').value = reason.trim();
    send(form);
  }

  function isTyping(target) {
    if (!target || !target.closest) return false;
    return !!target.closest(
      'textarea, select, [contenteditable=""], [contenteditable="true"], ' +
        'input:not([type]), input[type="text"], input[type="search"], input[type="number"]'
    );
  }

  document.addEventListener("keydown", function (event) {
    var form = finalForm();
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
    switch (event.key) {
      case "1":
      case "2":
      case "3":
        pick(Number(event.key));
        break;
      case "t": {
        var tag = form.querySelector('#tags input[type="checkbox"]');
        if (tag) tag.focus();
        break;
      }
      case "d":
        discard();
        break;
      case "Enter":
        // Buttons, links and <summary> keep their own Enter; other forms submit themselves.
        if (target.closest && target.closest("button, a, summary, form:not(#final-form)")) return;
        event.preventDefault();
        send(form);
        return;
      default:
        return;
    }
    event.preventDefault();
  });

  document.addEventListener(
    "submit",
    function (event) {
      var field = event.target && event.target.querySelector('input[name="submitted_at"]');
      if (field) field.value = String(Date.now());
    },
    true
  );

  document.addEventListener("DOMContentLoaded", stamp);
  stamp();
})();
