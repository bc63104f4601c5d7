/* Labeling page (see shortcuts.js):
 *   1 / 2 / 3  choose A / B / tie        t  focus the critical-failure tags
 *   Enter      submit (Ctrl+Enter inside the rationale)   s  skip (asks for a reason)
 */
(function () {
  "use strict";
  window.ArbiterShortcuts.install({
    formId: "label-form",
    choose: function (form, n) {
      var value = { 1: "A", 2: "B", 3: "tie" }[n];
      window.ArbiterShortcuts.check(form.querySelector('input[name="preferred"][value="' + value + '"]'));
    },
    reasonKey: "s",
    reasonFormId: "skip-form",
    reasonQuestion: "Why do you skip this item?",
    reasonMissing: "Skipping needs a reason.",
    enterSkip: "#skip-form",
  });
})();
