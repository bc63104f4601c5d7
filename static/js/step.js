/* Step ranking page (see shortcuts.js): 1-5 pick candidate 1-5 as shown, Enter submits
 * (Ctrl+Enter in a text box), k skips. Also filters the accessibility tree as you type. */
(function () {
  "use strict";
  window.ArbiterShortcuts.install({
    formId: "label-form",
    choose: function (form, n) {
      var radio = form.querySelectorAll('input[name="chosen"]')[n - 1];
      if (radio) window.ArbiterShortcuts.check(radio);
    },
    reasonKey: "k",
    reasonFormId: "skip-form",
    reasonQuestion: "Why do you skip this item?",
    reasonMissing: "Skipping needs a reason.",
    enterSkip: "#skip-form",
  });

  // shortcuts.js handles 1-3; 4 and 5 are this page's own.
  document.addEventListener("keydown", function (event) {
    var form = document.getElementById("label-form");
    var target = event.target;
    if (!form || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && target.closest && target.closest("textarea, select, input[type=text], input[type=search]")) return;
    if (event.key !== "4" && event.key !== "5") return;
    var radio = form.querySelectorAll('input[name="chosen"]')[Number(event.key) - 1];
    if (radio) window.ArbiterShortcuts.check(radio);
    event.preventDefault();
  });

  // Client-side filter of the tree: keeps the lines containing the text (original kept aside).
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input.classList || !input.classList.contains("axtree-filter")) return;
    var pre = input.parentNode.querySelector(".axtree-text");
    if (!pre.dataset.full) pre.dataset.full = pre.textContent;
    var needle = input.value.toLowerCase();
    pre.textContent = pre.dataset.full
      .split("\n")
      .filter(function (line) { return !needle || line.toLowerCase().indexOf(needle) !== -1; })
      .join("\n");
  });
  document.querySelectorAll(".axtree-filter").forEach(function (input) { input.hidden = false; });
})();
