/* Query refinement page (see shortcuts.js). The page works without this (plain form POST).
 *   1-5    pick candidate 1-5 as shown (decision: Pick as is)
 *   e      edit the picked candidate: opens its edit box, decision: Edit
 *   r      reject all: decision Reject, focus on the reasons
 *   Enter  save (Ctrl+Enter inside a text box)       k  skip (asks for a reason)
 * Typing in a candidate's edit box picks that candidate and sets decision Edit; choosing a
 * reject reason sets decision Reject.
 */
(function () {
  "use strict";
  var S = window.ArbiterShortcuts;

  function form() {
    return document.getElementById("label-form");
  }

  function decide(f, value) {
    S.check(f.querySelector('input[name="decision"][value="' + value + '"]'));
  }

  function candidate(f, n) {
    return f.querySelector('[data-candidate="' + n + '"]');
  }

  function pick(f, n) {
    var row = candidate(f, n);
    if (!row) return;
    S.check(row.querySelector('input[name="chosen"]'));
    decide(f, "pick");
  }

  function edit(f) {
    var radio = f.querySelector('input[name="chosen"]:checked');
    var row = radio && radio.closest("[data-candidate]");
    if (!row) {
      window.alert("Pick a candidate first (1-5), then press e to edit it.");
      return;
    }
    decide(f, "edit");
    var details = row.querySelector("details.query-edit");
    if (details) details.open = true;
    var box = row.querySelector('textarea[name="query"]');
    if (box) {
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    }
  }

  function reject(f) {
    decide(f, "reject");
    f.querySelectorAll('input[name="chosen"]').forEach(function (radio) { radio.checked = false; });
    var reason = f.querySelector('input[name="reject_reason"]:checked') || f.querySelector('input[name="reject_reason"]');
    if (reason) reason.focus();
  }

  S.install({
    formId: "label-form",
    choose: pick,
    reasonKey: "k",
    reasonFormId: "skip-form",
    reasonQuestion: "Why do you skip this item?",
    reasonMissing: "Skipping needs a reason.",
    enterSkip: "#skip-form",
  });

  // shortcuts.js handles 1-3; 4, 5, e and r are this page's own.
  document.addEventListener("keydown", function (event) {
    var f = form();
    var target = event.target;
    if (!f || event.defaultPrevented || event.isComposing) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && target.closest && target.closest('textarea, select, input[type="text"], input:not([type])')) return;
    if (event.key === "4" || event.key === "5") pick(f, Number(event.key));
    else if (event.key === "e") edit(f);
    else if (event.key === "r") reject(f);
    else return;
    event.preventDefault();
  });

  document.addEventListener("input", function (event) {
    var box = event.target;
    var f = form();
    if (!f || !box.matches || !box.matches('textarea[name="query"]') || !f.contains(box)) return;
    var row = box.closest("[data-candidate]");
    if (row) S.check(row.querySelector('input[name="chosen"]'));
    decide(f, "edit");
  });

  document.addEventListener("change", function (event) {
    var input = event.target;
    var f = form();
    if (!f || !input.matches || !f.contains(input)) return;
    if (input.matches('input[name="reject_reason"]')) {
      reject(f);
    } else if (input.matches('input[name="chosen"]') && input.checked) {
      // A candidate clicked with nothing decided yet, or after Reject all: keep it as is.
      var decision = f.querySelector('input[name="decision"]:checked');
      if (!decision || decision.value === "reject") decide(f, "pick");
    }
  });
})();
