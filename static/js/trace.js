/* Trace correction page (Agent-X). See shortcuts.js for the shared keys.
 *   1 / 2 / 3   verdict correct / corrected (opens the editor) / discard
 *   n / p       next / previous step;  y  all five checks pass on this step, then next
 *   4 - 8       cycle check 1-5 of this step (pass -> fail -> pass)
 *   Ctrl+S, Ctrl+Enter  save;  Ctrl+Z (outside a text box) or the Undo button: undo an edit
 *   k           skip
 * The editor renders the steps of #trace-data with DOM nodes and textContent/value only (never
 * innerHTML: trace content is hostile until proven otherwise) and writes them, as JSON, into the
 * form's `steps_json` field, which is what the server reads and validates again (jsonschema).
 * Without this script the page still works: checks and verdict are plain inputs and the steps
 * can be edited in the #steps-json text box. */
(function () {
  "use strict";

  var CHECKS = ["tool_choice", "argument_format", "step_order", "output_alignment", "evidence"];
  var form = document.getElementById("label-form");
  var page = document.getElementById("label-page");
  if (!form || !page) return;
  page.classList.add("js-trace"); // the editor folds away unless the verdict is "corrected"

  window.ArbiterShortcuts.install({
    formId: "label-form",
    choose: function (f, n) {
      var radio = f.querySelectorAll('input[name="verdict"]')[n - 1];
      if (radio) window.ArbiterShortcuts.check(radio);
      if (n === 2) focusEditor();
    },
    reasonKey: "k",
    reasonFormId: "skip-form",
    reasonQuestion: "Why do you skip this item?",
    reasonMissing: "Skipping needs a reason.",
    enterSkip: "#skip-form, #trace-editor, .trace-checks",
  });

  // --- steps: the current one, checks ------------------------------------------------------
  var steps = Array.prototype.slice.call(document.querySelectorAll("#trace-steps .trace-step"));
  var current = 0;

  function setCurrent(i) {
    if (!steps.length) return;
    current = Math.max(0, Math.min(steps.length - 1, i));
    steps.forEach(function (s, k) { s.classList.toggle("current", k === current); });
    steps[current].focus({ preventScroll: true });
    steps[current].scrollIntoView({ block: "nearest", behavior: "smooth" });
  }

  function checkRadio(stepIndex, check, value) {
    var name = "check_" + stepIndex + "_" + check;
    var radio = document.querySelector('input[name="' + name + '"][value="' + value + '"]');
    if (radio) window.ArbiterShortcuts.check(radio);
  }

  function cycleCheck(stepIndex, check) {
    var on = document.querySelector('input[name="check_' + stepIndex + "_" + check + '"]:checked');
    checkRadio(stepIndex, check, on && on.value === "pass" ? "fail" : "pass");
  }

  function isTyping(target) {
    return !!(target && target.closest && target.closest("textarea, select, input:not([type=radio]):not([type=checkbox])"));
  }

  function save() {
    var button = document.getElementById("save");
    if (button && button.disabled) return;
    if (typeof form.requestSubmit === "function") form.requestSubmit(button || undefined);
    else form.submit();
  }

  document.addEventListener("keydown", function (event) {
    var key = event.key;
    if ((event.ctrlKey || event.metaKey) && !event.altKey) {
      if (key === "s" || key === "S") {
        event.preventDefault();
        save();
      } else if (key === "Enter" && isTyping(event.target) && !form.contains(event.target) &&
                 (event.target.form === form || event.target.closest("#trace-editor"))) {
        // Fields of the form that live outside it (form="label-form"): shortcuts.js skips them.
        event.preventDefault();
        save();
      } else if ((key === "z" || key === "Z") && !event.shiftKey && !isTyping(event.target) && editor) {
        event.preventDefault();
        editor.undo();
      }
      return;
    }
    if (event.defaultPrevented || event.altKey || isTyping(event.target)) return;
    if (key === "n") setCurrent(current + 1);
    else if (key === "p") setCurrent(current - 1);
    else if (key === "y") {
      CHECKS.forEach(function (c) { checkRadio(current, c, "pass"); });
      setCurrent(current + 1);
    } else if (key >= "4" && key <= "8") cycleCheck(current, CHECKS[Number(key) - 4]);
    else return;
    event.preventDefault();
  });
  steps.forEach(function (s, k) { s.addEventListener("focusin", function () { current = k; }); });

  // --- verdict: what shows ---------------------------------------------------------------------
  var editorCard = document.getElementById("trace-editor");
  var discard = document.getElementById("discard-fields");

  function verdict() {
    var on = form.querySelector('input[name="verdict"]:checked');
    return on ? on.value : "";
  }

  function showVerdict() {
    var v = verdict();
    if (editorCard) editorCard.dataset.open = v === "corrected" ? "1" : "0";
    if (discard) discard.hidden = v !== "discard" && !discard.querySelector(".error");
    refreshSave();
  }

  function focusEditor() {
    if (!editorCard) return;
    editorCard.dataset.open = "1";
    editorCard.scrollIntoView({ block: "start", behavior: "smooth" });
  }

  form.addEventListener("change", function (event) {
    if (event.target && event.target.name === "verdict") showVerdict();
  });

  var typeOk = window.ArbiterTraceSchema.typeOk;
  var schemaErrors = window.ArbiterTraceSchema.errors;

  // --- the editor ------------------------------------------------------------------------------
  var editor = null;
  var dataNode = document.getElementById("trace-data");
  var mount = document.getElementById("trace-editor-mount");
  var field = document.getElementById("steps-json");
  var data = dataNode ? JSON.parse(dataNode.textContent) : null;

  function argsText(args) {
    if (typeof args === "string") return args;
    return JSON.stringify(args == null ? {} : args, null, 2);
  }

  function make(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text != null) node.textContent = text;
    return node;
  }

  function Editor(registry, initial) {
    this.registry = registry || {};
    this.names = Object.keys(this.registry);
    this.steps = initial.map(function (s) {
      return {
        task: s.task || "", thought: s.thought || "", tool: s.tool || "",
        args: argsText(s.arguments), output: s.output || "",
      };
    });
    this.history = [];
    this.last = this.snapshot();
    this.timer = null;
  }

  Editor.prototype.snapshot = function () {
    var finalValue = document.getElementById("final-value-input");
    var finalWhy = document.getElementById("final-justification-input");
    return JSON.stringify({
      steps: this.steps,
      value: finalValue ? finalValue.value : "",
      why: finalWhy ? finalWhy.value : "",
    });
  };

  // Record the state before a change; typing is grouped (one undo per pause).
  Editor.prototype.commit = function () {
    clearTimeout(this.timer);
    var now = this.snapshot();
    if (now !== this.last) {
      this.history.push(this.last);
      if (this.history.length > 200) this.history.shift();
      this.last = now;
    }
    this.sync();
  };

  Editor.prototype.later = function () {
    var self = this;
    clearTimeout(this.timer);
    this.timer = setTimeout(function () { self.commit(); }, 600);
    this.sync();
  };

  Editor.prototype.undo = function () {
    this.commit();
    if (!this.history.length) return;
    var state = JSON.parse(this.history.pop());
    this.last = JSON.stringify(state);
    this.steps = state.steps;
    var finalValue = document.getElementById("final-value-input");
    var finalWhy = document.getElementById("final-justification-input");
    if (finalValue) finalValue.value = state.value;
    if (finalWhy) finalWhy.value = state.why;
    this.render();
    status("Undone.");
  };

  Editor.prototype.problems = function (step) {
    var out = [];
    var parsed;
    if (step.tool && this.names.length && this.names.indexOf(step.tool) === -1) {
      out.push("'" + step.tool + "' is not in the tool registry: choose a tool from the list.");
    }
    var text = step.args.trim();
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        out.push("Not valid JSON: " + e.message);
        return out;
      }
      if (!typeOk(parsed, "object")) {
        out.push("Arguments must be a JSON object.");
        return out;
      }
    } else {
      parsed = {};
    }
    if (!step.tool && Object.keys(parsed).length) out.push("Arguments without a tool: choose the tool.");
    if (step.tool && this.registry[step.tool]) {
      schemaErrors(parsed, this.registry[step.tool], "", []).forEach(function (e) { out.push(e); });
    }
    return out;
  };

  Editor.prototype.errors = function () {
    var self = this;
    return this.steps.reduce(function (n, s) { return n + self.problems(s).length; }, 0);
  };

  Editor.prototype.sync = function () {
    field.value = JSON.stringify(
      this.steps.map(function (s) {
        var args = s.args;
        try {
          var parsed = s.args.trim() ? JSON.parse(s.args) : {};
          if (typeOk(parsed, "object")) args = parsed;
        } catch (e) { /* sent as typed; the server names the error too */ }
        return { task: s.task, thought: s.thought, tool: s.tool, arguments: args, output: s.output };
      }),
      null,
      1
    );
    var undo = document.getElementById("undo");
    if (undo) undo.disabled = !this.history.length && this.snapshot() === this.last;
    refreshSave();
  };

  Editor.prototype.move = function (i, j) {
    if (j < 0 || j >= this.steps.length) return;
    this.commit(); // typing before a structural change is its own undo step
    var s = this.steps.splice(i, 1)[0];
    this.steps.splice(j, 0, s);
    this.commit();
    this.render(j);
  };

  Editor.prototype.remove = function (i) {
    this.commit();
    this.steps.splice(i, 1);
    this.commit();
    this.render(Math.min(i, this.steps.length - 1));
  };

  Editor.prototype.insert = function (i) {
    this.commit();
    this.steps.splice(i, 0, { task: "", thought: "", tool: "", args: "{}", output: "" });
    this.commit();
    this.render(i);
  };

  Editor.prototype.render = function (focusIndex) {
    var self = this;
    while (mount.firstChild) mount.removeChild(mount.firstChild);
    this.steps.forEach(function (step, i) { mount.appendChild(self.stepNode(step, i)); });
    this.sync();
    if (focusIndex != null && focusIndex >= 0) {
      var node = mount.querySelector('[data-edit-step="' + (focusIndex + 1) + '"] input');
      if (node) node.focus();
    }
  };

  Editor.prototype.showProblems = function (box, flag, step) {
    var problems = this.problems(step);
    while (box.firstChild) box.removeChild(box.firstChild);
    problems.forEach(function (p) { box.appendChild(make("p", {}, p)); });
    box.hidden = !problems.length;
    flag.hidden = !(step.tool && this.names.length && this.names.indexOf(step.tool) === -1);
  };

  Editor.prototype.stepNode = function (step, i) {
    var self = this;
    var node = make("div", { class: "editor-step", "data-edit-step": String(i + 1) });
    var head = make("div", { class: "editor-step-head" });
    head.appendChild(make("strong", {}, "Step " + (i + 1)));
    var flag = make("span", { class: "flag flag-bad", "data-flag": "hallucinated" }, "not in the tool registry");
    head.appendChild(flag);
    [["↑", "Move up", function () { self.move(i, i - 1); }],
     ["↓", "Move down", function () { self.move(i, i + 1); }],
     ["+ step after", "Insert a step after this one", function () { self.insert(i + 1); }],
     ["Delete", "Delete this step", function () { self.remove(i); }]].forEach(function (b) {
      var button = make("button", { type: "button", title: b[1], "data-action": b[1] }, b[0]);
      button.addEventListener("click", b[2]);
      head.appendChild(button);
    });
    node.appendChild(head);
    var box = make("div", { class: "error arg-errors", role: "alert" });

    function text(label, key, rows) {
      var wrap = make("label", { class: "block" }, label + " ");
      var input = rows ? make("textarea", { rows: String(rows), "data-field": key }) : make("input", { type: "text", "data-field": key });
      if (key === "args") { input.className = "json"; input.spellcheck = false; }
      input.value = step[key];
      input.addEventListener("input", function () {
        step[key] = input.value;
        if (key === "args") self.showProblems(box, flag, step);
        self.later();
      });
      wrap.appendChild(input);
      node.appendChild(wrap);
    }

    text("Sub-task", "task", 0);
    text("Thought", "thought", 2);
    var toolLabel = make("label", { class: "block" }, "Tool ");
    var select = make("select", { "data-field": "tool" });
    select.appendChild(make("option", { value: "" }, "— no tool —"));
    this.names.forEach(function (name) { select.appendChild(make("option", { value: name }, name)); });
    if (step.tool && this.names.indexOf(step.tool) === -1) {
      // Kept so the annotator sees what the model called; it cannot be saved.
      select.appendChild(make("option", { value: step.tool }, step.tool + " (not in the registry)"));
    }
    select.value = step.tool;
    select.addEventListener("change", function () {
      self.commit();
      step.tool = select.value;
      self.commit();
      self.showProblems(box, flag, step);
    });
    toolLabel.appendChild(select);
    node.appendChild(toolLabel);
    text("Arguments (JSON)", "args", 4);
    node.appendChild(box);
    text("Tool output", "output", 2);
    this.showProblems(box, flag, step);
    return node;
  };

  function status(message) {
    var node = document.getElementById("editor-status");
    if (node) node.textContent = message;
  }

  function refreshSave() {
    var button = document.getElementById("save");
    var hint = document.getElementById("save-hint");
    if (!button) return;
    var n = editor && verdict() === "corrected" ? editor.errors() : 0;
    button.disabled = n > 0;
    if (hint) hint.textContent = n ? "Fix " + n + " problem" + (n === 1 ? "" : "s") + " in the editor to save." : "";
  }

  if (data && mount && field && Array.isArray(data.steps)) {
    editor = new Editor(data.registry, data.steps);
    document.getElementById("editor-toolbar").hidden = false;
    document.getElementById("steps-json-label").style.display = "none";
    document.getElementById("undo").addEventListener("click", function () { editor.undo(); });
    document.getElementById("add-step").addEventListener("click", function () { editor.insert(editor.steps.length); });
    ["final-value-input", "final-justification-input"].forEach(function (id) {
      var input = document.getElementById(id);
      if (input) input.addEventListener("input", function () { editor.later(); });
    });
    editor.render();
  } else if (data && field) {
    status("The saved draft is not valid JSON: fix it in the text box below.");
  }
  showVerdict();
  // Leaving with unsaved corrections asks first.
  window.addEventListener("beforeunload", function (event) {
    if (editor && editor.history.length && !form.dataset.submitting) event.preventDefault();
  });
  form.addEventListener("submit", function () { form.dataset.submitting = "1"; });
  if (steps.length) steps[0].classList.add("current");
})();
