/* Adjudication page (see shortcuts.js):
 *   1 / 2 / 3  pairs: first / second / tie; other kinds: the 1st / 2nd / 3rd label to accept
 *   t          focus the critical-failure tags
 *   Enter      save the decision (Ctrl+Enter inside the reason box)
 *   d          discard (asks for a reason)
 */
(function () {
  "use strict";
  window.ArbiterShortcuts.install({
    formId: "final-form",
    choose: function (form, n) {
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
    enterSkip: "form:not(#final-form)",
  });
})();
