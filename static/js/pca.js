/* P/C/A labeling page (see shortcuts.js):
 *   q / w  P = 1 / 0     a / s  C = 1 / 0     z / x  A = 1 / 0     1 / 2 / 3  flip P / C / A
 *   Enter  submit (Ctrl+Enter inside an evidence note)               k  skip (asks for a reason)
 */
(function () {
  "use strict";
  var DIMS = ["perception", "cognition", "action"];
  var KEYS = {
    q: ["perception", "1"],
    w: ["perception", "0"],
    a: ["cognition", "1"],
    s: ["cognition", "0"],
    z: ["action", "1"],
    x: ["action", "0"],
  };

  function set(form, dim, value) {
    window.ArbiterShortcuts.check(form.querySelector('input[name="' + dim + '"][value="' + value + '"]'));
  }

  window.ArbiterShortcuts.install({
    formId: "label-form",
    choose: function (form, n) {
      var dim = DIMS[n - 1];
      var current = form.querySelector('input[name="' + dim + '"]:checked');
      set(form, dim, current && current.value === "1" ? "0" : "1");
    },
    reasonKey: "k",
    reasonFormId: "skip-form",
    reasonQuestion: "Why do you skip this item?",
    reasonMissing: "Skipping needs a reason.",
    enterSkip: "#skip-form",
  });

  document.addEventListener("keydown", function (event) {
    var form = document.getElementById("label-form");
    var target = event.target;
    if (!form || event.defaultPrevented || event.isComposing) return;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && target.closest && target.closest('textarea, select, input[type="text"], input:not([type])')) return;
    var key = KEYS[event.key];
    if (!key) return;
    set(form, key[0], key[1]);
    event.preventDefault();
  });
})();
