// Forms keep what was typed when the server refuses it. A page form posts, the server answers
// with a redirect back and a message; when that message is a refusal, the fields of the form
// that was sent are filled again with what the person typed (never a password, a file or the
// form's token), so they fix the one thing named instead of typing it all again. Kept in this
// tab's sessionStorage for one page load only. A form with a version (a game being fixed) is
// not filled again when what it edits has changed meanwhile.
(function () {
  "use strict";
  const KEY = "mahjong-league:typed";
  const kept = (el) => el.name && el.name !== "csrf" && !["password", "file", "hidden", "submit", "button"].includes(el.type);

  document.addEventListener("submit", (e) => {
    const form = e.target;
    // A form a script sends itself (the scoring screen) keeps its own state.
    if (!(form instanceof HTMLFormElement) || e.defaultPrevented) return;
    if ((form.getAttribute("method") || "").toLowerCase() !== "post") return;
    const fields = [];
    Array.from(form.elements).forEach((el) => {
      if (!kept(el)) return;
      if (el.type === "checkbox" || el.type === "radio") fields.push({ name: el.name, value: el.value, checked: el.checked });
      else fields.push({ name: el.name, value: el.value });
    });
    // Which of the page's forms with this action it was (a page may have several: a role form
    // per member, and the one that adds a member).
    const action = form.getAttribute("action");
    const index = Array.from(document.forms).filter((f) => f.getAttribute("action") === action).indexOf(form);
    try {
      const version = form.elements.version ? form.elements.version.value : null;
      sessionStorage.setItem(KEY, JSON.stringify({ page: location.pathname, action: action, index: index, fields: fields, version: version }));
    } catch (_) { /* storage full or off: nothing kept */ }
  });

  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(KEY) || "null");
    sessionStorage.removeItem(KEY);
  } catch (_) { saved = null; }
  if (!saved || saved.page !== location.pathname) return;
  // Only after a refusal: a success shows the page as it now is.
  if (!document.querySelector("main .flash.bad, main [role=alert]")) return;
  const form = Array.from(document.forms).filter((f) => f.getAttribute("action") === saved.action)[saved.index || 0];
  if (!form) return;
  // What the form edits was changed meanwhile (its version moved on): the page shows it as now
  // stored, and what was typed is not put back over it, where one more tap would overwrite
  // the other person's change.
  if (saved.version !== null && saved.version !== undefined && form.elements.version &&
      form.elements.version.value !== saved.version) return;
  let first = null;
  const byName = {};
  saved.fields.forEach((f) => { (byName[f.name] = byName[f.name] || []).push(f); });
  Object.keys(byName).forEach((name) => {
    const els = Array.from(form.elements).filter((el) => el.name === name && kept(el));
    const values = byName[name];
    els.forEach((el, i) => {
      if (el.type === "checkbox" || el.type === "radio") {
        const f = values.find((v) => v.value === el.value);
        if (f) el.checked = f.checked;
      } else if (values[i] !== undefined && el.value !== values[i].value) {
        el.value = values[i].value;
        if (!first && values[i].value) first = el;
      }
    });
  });
  // A form folded away (a <details>) is opened, so what was kept is seen.
  const fold = form.closest("details");
  if (fold) fold.open = true;
  form.dataset.kept = "1";
  // The refusal is said again beside the form (the page's message may be far above it), and
  // the form is brought into view with the kept text.
  const refusal = document.querySelector("main > .flash.bad");
  if (refusal && !form.previousElementSibling?.classList.contains("kept-note")) {
    const note = document.createElement("p");
    note.className = "flash bad kept-note";
    note.textContent = refusal.textContent + " What you typed is kept below.";
    form.before(note);
    note.scrollIntoView({ block: "start" });
  }
  if (first && first.focus) first.focus({ preventScroll: true });
})();
