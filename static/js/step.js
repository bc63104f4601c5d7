/* Step ranking page (see shortcuts.js for Enter, 1-3 and k). Keys of this page:
 *   1-5        candidate 1-5 (as shown) is best
 *   e / x + 1-5  toggle "equally good" / "invalid" for that candidate
 *   y / p / n  mark a checklist cell Yes / In progress / No: the focused cell, else the next
 *              unmarked one; focus then moves to the following cell
 *   o          element ids over the screenshot on/off
 *   /          search the accessibility tree
 *   c          open the checklist editor
 * Pointing at an element box highlights its accessibility-tree line and the other way round.
 * Everything here is an aid: the page and its forms work without it. */
(function () {
  "use strict";
  var S = window.ArbiterShortcuts;

  S.install({
    formId: "label-form",
    choose: function (form, n) {
      S.check(form.querySelectorAll('input[name="chosen"]')[n - 1]);
    },
    reasonKey: "k",
    reasonFormId: "skip-form",
    reasonQuestion: "Why do you skip this item?",
    reasonMissing: "Skipping needs a reason.",
    enterSkip: "#skip-form, #checklist-edit",
  });

  function isTyping(target) {
    return !!(
      target &&
      target.closest &&
      target.closest('textarea, select, [contenteditable], input:not([type]), input[type="text"], input[type="search"]')
    );
  }

  function toggle(box) {
    if (!box) return;
    box.checked = !box.checked;
    box.dispatchEvent(new Event("change", { bubbles: true }));
  }

  // --- checklist marks: every radio group inside .step-marks, in document order -------------
  function markGroups(form) {
    var names = [];
    form.querySelectorAll('.step-marks input[type="radio"]').forEach(function (radio) {
      if (names.indexOf(radio.name) === -1) names.push(radio.name);
    });
    return names;
  }

  function radiosOf(form, name) {
    return Array.prototype.filter.call(form.querySelectorAll('.step-marks input[type="radio"]'), function (r) {
      return r.name === name;
    });
  }

  function focusGroup(form, name) {
    var radios = radiosOf(form, name);
    var target = radios.filter(function (r) { return r.checked; })[0] || radios[0];
    if (target) target.focus();
  }

  function mark(form, value, target) {
    var names = markGroups(form);
    if (!names.length) return false;
    var current = target && target.type === "radio" && names.indexOf(target.name) !== -1 ? target.name : null;
    if (!current) {
      current = names.filter(function (name) {
        return !radiosOf(form, name).some(function (r) { return r.checked; });
      })[0];
    }
    if (!current) return false;
    S.check(radiosOf(form, current).filter(function (r) { return r.value === value; })[0]);
    var next = names[names.indexOf(current) + 1];
    focusGroup(form, next || current);
    return true;
  }

  var pending = null; // "equivalent" | "invalid" after e / x, until the next key

  // Capture on window: runs before shortcuts.js, so "e 1" toggles candidate 1 instead of also
  // making it best (shortcuts.js leaves alone what was handled here: defaultPrevented).
  window.addEventListener("keydown", function (event) {
    var form = document.getElementById("label-form");
    var target = event.target;
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || isTyping(target)) return;
    var key = event.key;
    var waiting = pending;
    pending = null;
    if (form && waiting && /^[1-5]$/.test(key)) {
      toggle(form.querySelectorAll('input[name="' + waiting + '"]')[Number(key) - 1]);
    } else if (form && (key === "e" || key === "x")) {
      pending = key === "e" ? "equivalent" : "invalid";
    } else if (form && (key === "4" || key === "5")) {
      S.check(form.querySelectorAll('input[name="chosen"]')[Number(key) - 1]); // shortcuts.js does 1-3
    } else if (form && (key === "y" || key === "p" || key === "n")) {
      if (!mark(form, { y: "yes", p: "in_progress", n: "no" }[key], target)) return;
    } else if (key === "o") {
      var shot = document.getElementById("obs-shot");
      if (!shot || shot.dataset.overlay === "none") return;
      shot.classList.toggle("overlay-off");
      shot.dataset.overlay = shot.classList.contains("overlay-off") ? "off" : "on";
    } else if (key === "/") {
      var filter = document.querySelector(".axtree-filter");
      if (!filter) return;
      filter.closest("details").open = true;
      filter.focus();
    } else if (key === "c") {
      var drawer = document.getElementById("checklist-edit-drawer");
      if (!drawer) return;
      drawer.open = true;
      var first = drawer.querySelector('input[type="text"]');
      if (first) first.focus();
    } else {
      return;
    }
    event.preventDefault();
  }, true);

  // --- the accessibility tree: search, and pairing lines with element boxes -----------------
  document.addEventListener("input", function (event) {
    var input = event.target;
    if (!input.classList || !input.classList.contains("axtree-filter")) return;
    var needle = input.value.toLowerCase();
    input.parentNode.querySelectorAll(".ax-line").forEach(function (line) {
      line.hidden = !!needle && line.textContent.toLowerCase().indexOf(needle) === -1;
    });
  });

  function partners(el) {
    var bid = el.getAttribute("data-bid");
    var sel = '[data-bid="' + (window.CSS && CSS.escape ? CSS.escape(bid) : bid) + '"]';
    return document.querySelectorAll(".el-box" + sel + ", .ax-line" + sel);
  }

  function highlight(el, on) {
    partners(el).forEach(function (node) {
      node.classList.toggle("hl", on);
      // Bring the partner line into view inside the tree's own scroll box, not the page.
      if (on && node !== el && node.classList.contains("ax-line")) {
        var pre = node.closest("pre");
        if (pre && (node.offsetTop < pre.scrollTop || node.offsetTop > pre.scrollTop + pre.clientHeight - 20)) {
          pre.scrollTop = node.offsetTop - pre.clientHeight / 2;
        }
      }
    });
  }

  ["mouseover", "mouseout", "focusin", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (event) {
      var el = event.target.closest && event.target.closest(".el-box[data-bid], .ax-line[data-bid]");
      if (el) highlight(el, type === "mouseover" || type === "focusin");
    });
  });

  // Boxes whose screenshot size the server did not know: place them once the image has loaded.
  function place(wrap) {
    var img = wrap.querySelector("img.obs-img");
    if (!img || !img.naturalWidth) return;
    wrap.querySelectorAll(".el-box.unplaced").forEach(function (box) {
      var b = (box.getAttribute("data-bbox") || "").split(" ").map(Number);
      if (b.length !== 4 || b.some(isNaN)) return;
      box.style.left = (b[0] / img.naturalWidth) * 100 + "%";
      box.style.top = (b[1] / img.naturalHeight) * 100 + "%";
      box.style.width = (b[2] / img.naturalWidth) * 100 + "%";
      box.style.height = (b[3] / img.naturalHeight) * 100 + "%";
      box.classList.remove("unplaced");
    });
  }

  // --- keep what was chosen across a checklist edit (a full page POST) ----------------------
  function stashKey() {
    var page = document.getElementById("label-page");
    return page ? "arbiter-step-" + page.getAttribute("data-item") : null;
  }

  document.addEventListener("submit", function (event) {
    if (!event.target || event.target.id !== "checklist-edit") return;
    var form = document.getElementById("label-form");
    var key = stashKey();
    if (!form || !key) return;
    var loaded = form.querySelector('input[name="page_loaded_at"]');
    var state = {
      checked: [],
      rationale: (form.querySelector('textarea[name="rationale"]') || {}).value || "",
      loadedAt: loaded ? loaded.value : "",
    };
    form.querySelectorAll('input[name="chosen"], input[name="equivalent"], input[name="invalid"], input[name="flagged"]')
      .forEach(function (input) {
        if (input.checked) state.checked.push([input.name, input.value]);
      });
    try { window.sessionStorage.setItem(key, JSON.stringify(state)); } catch (e) { /* private mode */ }
  });

  function restore() {
    var key = stashKey();
    var form = document.getElementById("label-form");
    var raw = null;
    try { raw = key && window.sessionStorage.getItem(key); } catch (e) { return; }
    if (!raw || !form) return;
    window.sessionStorage.removeItem(key);
    var state = JSON.parse(raw);
    state.checked.forEach(function (pair) {
      form.querySelectorAll('input[name="' + pair[0] + '"]').forEach(function (input) {
        if (input.value === pair[1]) input.checked = true;
      });
    });
    var rationale = form.querySelector('textarea[name="rationale"]');
    if (rationale && !rationale.value) rationale.value = state.rationale;
    // Time on item counts from the first load, not from the reload after the edit.
    var loaded = form.querySelector('input[name="page_loaded_at"]');
    if (loaded && state.loadedAt) loaded.value = state.loadedAt;
  }

  function init(root) {
    root.querySelectorAll(".axtree-filter").forEach(function (input) { input.hidden = false; });
    root.querySelectorAll(".shot-wrap").forEach(function (wrap) {
      var img = wrap.querySelector("img.obs-img");
      if (!img) return;
      if (img.complete) place(wrap);
      else img.addEventListener("load", function () { place(wrap); });
    });
  }

  init(document);
  restore();
  document.addEventListener("htmx:load", function (event) {
    if (event.target && event.target.querySelectorAll) init(event.target);
  });
})();
