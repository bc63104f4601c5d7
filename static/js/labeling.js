/* Labeling page: keyboard shortcuts and time on item. No libraries; the page works without
 * this file (plain form POST), this only makes it faster to use.
 *   1 / 2 / 3  choose A / B / tie        t  focus the critical-failure tags
 *   Enter      submit (Ctrl+Enter inside the rationale)   s  skip (asks for a reason)
 */
(function () {
  "use strict";

  function labelForm() {
    return document.getElementById("label-form");
  }

  // The page-load time; kept when htmx re-renders the form after an error (the server echoes it).
  function stamp(root) {
    var scope = root && root.querySelectorAll ? root : document;
    scope.querySelectorAll('input[name="page_loaded_at"]').forEach(function (input) {
      if (!input.value) input.value = String(Date.now());
    });
  }

  function submitLabel(form) {
    if (typeof form.requestSubmit === "function") form.requestSubmit();
    else form.submit();
  }

  function choose(value) {
    var form = labelForm();
    if (!form) return;
    var radio = form.querySelector('input[name="preferred"][value="' + value + '"]');
    if (radio) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }

  function skip() {
    var form = document.getElementById("skip-form");
    if (!form) return;
    var reason = window.prompt("Why do you skip this item?");
    if (reason === null) return;
    if (!reason.trim()) {
      window.alert("Skipping needs a reason.");
      return;
    }
    form.querySelector('input[name="reason"]').value = reason.trim();
    submitLabel(form);
  }

  function isTyping(target) {
    if (!target || !target.closest) return false;
    return !!target.closest(
      'textarea, select, [contenteditable=""], [contenteditable="true"], ' +
        'input:not([type]), input[type="text"], input[type="search"], input[type="number"]'
    );
  }

  document.addEventListener("keydown", function (event) {
    var form = labelForm();
    if (!form || event.defaultPrevented || event.isComposing) return;
    var target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      if (form.contains(target) || !isTyping(target)) {
        event.preventDefault();
        submitLabel(form);
      }
      return;
    }
    if (isTyping(target) || event.altKey || event.ctrlKey || event.metaKey) return;
    switch (event.key) {
      case "1":
        choose("A");
        break;
      case "2":
        choose("B");
        break;
      case "3":
        choose("tie");
        break;
      case "t": {
        var tag = form.querySelector('#tags input[type="checkbox"]');
        if (tag) tag.focus();
        break;
      }
      case "s":
        skip();
        break;
      case "Enter":
        // Buttons, links and <summary> keep their own Enter; the skip form submits itself.
        if (target.closest && target.closest('button, a, summary, #skip-form')) return;
        event.preventDefault();
        submitLabel(form);
        return;
      default:
        return;
    }
    event.preventDefault();
  });

  // Capture phase: runs before htmx reads the form, so the value travels with the request.
  document.addEventListener(
    "submit",
    function (event) {
      if (event.target && event.target.id === "label-form") {
        var field = event.target.querySelector('input[name="submitted_at"]');
        if (field) field.value = String(Date.now());
      }
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
})();
