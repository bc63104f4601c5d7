/* Adjudication page (see shortcuts.js):
 *   1 / 2 / 3  pairs: first / second / tie; other kinds: the 1st / 2nd / 3rd label to accept;
 *              step, P/C/A, trace, query: start the settled label from annotator 1 / 2 / 3's label
 *   m          step, P/C/A, trace, query: start again from the majority label
 *   t          focus the critical-failure tags
 *   Enter      save the decision (Ctrl+Enter inside the reason box)
 *   d          discard (asks for a reason)
 * Taking a label follows the link a[data-take="N"] (the page reloads with ?take=N), so the
 * same works without JS.
 */
(function () {
  "use strict";
  var composed = !!document.getElementById("adjudicate-form");

  function take(key) {
    var link = document.querySelector('a[data-take="' + key + '"]');
    if (link) link.click();
  }

  window.ArbiterShortcuts.install({
    formId: composed ? "adjudicate-form" : "final-form",
    choose: function (form, n) {
      if (composed) {
        take(String(n));
        return;
      }
      var radio;
      if (form.querySelector('input[name="preferred"]')) {
        var value = { 1: "first", 2: "second", 3: "tie" }[n];
        radio = form.querySelector('input[name="preferred"][value="' + value + '"]');
      } else {
        radio = form.querySelectorAll('input[name="accept"]')[n - 1];
      }
      window.ArbiterShortcuts.check(radio);
    },
    reasonKey: "d",
    reasonFormId: "discard-form",
    reasonQuestion: "Why is this item discarded?",
    reasonMissing: "Discarding needs a reason.",
    enterSkip: composed ? "form:not(#adjudicate-form), select" : "form:not(#final-form)",
  });

  if (!composed) return;
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.defaultPrevented || event.isComposing || event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && target.closest && target.closest("textarea, select, input[type=text], input:not([type])")) return;
    if (event.key === "m") {
      take("m");
      event.preventDefault();
    } else if (/^[4-9]$/.test(event.key)) {
      // shortcuts.js handles 1-3; more annotators are rarer but reachable too.
      take(event.key);
      event.preventDefault();
    }
  });
})();
