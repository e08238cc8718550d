// The card editor. Lines are laid out by section as on a printed card; each line is checked by
// the service's card parser as it is typed (POST /api/v1/lines/check) and drawn as tiles from
// the parser's own reading; the whole draft is saved as it is typed, each save naming the
// revision it changed, so a second device never overwrites the first.
(() => {
  "use strict";
  let keySeq = 0;
  function nextKey() { keySeq += 1; return "k" + keySeq; }
  const root = document.getElementById("editor");
  if (!root) return;
  try { start(root); } catch (e) {
    document.getElementById("save-state").textContent = "The editor could not start (" + e.message + "); reload the page.";
    throw e;
  }
  function start(root) {
  const $ = (s, el) => (el || document).querySelector(s);
  const club = root.dataset.club;
  const id = root.dataset.id;
  // Times on the club's clock, as the service writes them: "7:42 PM EST".
  const clockTime = (at) => {
    try {
      return at.toLocaleTimeString("en-US", { timeZone: root.dataset.zone, hour: "numeric", minute: "2-digit", timeZoneName: "short" });
    } catch (_) {
      return at.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", timeZoneName: "short" });
    }
  };
  const api = "/api/v1/clubs/" + club + "/card-drafts/" + id;
  let draft = JSON.parse(root.dataset.draft);
  // Per line: its check (problems, targets, drawing) and a key that stays with it across moves.
  let checks = draft.lines.map((_, i) => ({ problems: draft.line_problems[i] || [], targets: null, drawing: null }));
  let keys = draft.lines.map(() => nextKey());
  let revision = draft.revision;
  let dirty = false;
  let saving = null;
  let saveTimer = null;
  // Key → { inFlight, again, started } for the one-at-a-time line checks.
  const pending = new Map();
  // How long each keystroke took to be checked and drawn (ms), for the measurement script.
  window.cardEditorTimings = [];

  const saveState = $("#save-state");
  const say = (text) => { saveState.textContent = text; };

  // ---- the card's own fields
  const head = { name: $("#card-name"), year: $("#card-year"), publisher: $("#card-publisher") };
  for (const k of Object.keys(head)) {
    head[k].value = draft.head[k] || "";
    head[k].addEventListener("input", () => { draft.head[k] = head[k].value; changed(); });
  }
  const pub = $("#card-public");
  pub.checked = !!draft.public;
  pub.addEventListener("change", () => { draft.public = pub.checked; changed(); });

  // ---- drawing
  function drawGroups(drawing) {
    const box = document.createElement("div");
    box.className = "sk-drawing";
    (drawing || []).forEach((alt, a) => {
      const row = document.createElement("div");
      row.className = "sk-line";
      if (a > 0) {
        const or = document.createElement("span");
        or.className = "or";
        or.textContent = "or";
        row.appendChild(or);
      }
      for (const g of alt) {
        const group = document.createElement("span");
        group.className = "sk-group " + (g.colour === null ? "plain" : "c" + (g.colour % 3));
        for (const ch of g.symbols) {
          const t = document.createElement("span");
          t.className = "sk-tile";
          t.textContent = ch;
          group.appendChild(t);
        }
        if (g.letter) {
          const l = document.createElement("span");
          l.className = "sk-letter";
          l.textContent = g.letter;
          group.appendChild(l);
        }
        row.appendChild(group);
      }
      box.appendChild(row);
    });
    return box;
  }

  function lineLabel(i) {
    const section = draft.lines[i].section;
    let n = 0;
    for (let j = 0; j <= i; j++) if (draft.lines[j].section === section) n++;
    return (section || "No section") + ", line " + n;
  }

  function showCheck(i) {
    const li = document.querySelector('li.ed-line[data-key="' + keys[i] + '"]');
    if (!li) return;
    const c = checks[i];
    const drawing = $(".ed-drawing", li);
    drawing.replaceChildren();
    if (c.drawing) drawing.appendChild(drawGroups(c.drawing));
    const list = $(".line-problems", li);
    list.replaceChildren();
    const problems = draft.lines[i].unread ? [draft.lines[i].unread].concat(c.problems.filter((p) => p !== draft.lines[i].unread)) : c.problems;
    for (const p of problems) {
      const item = document.createElement("li");
      item.textContent = "✗ " + p;
      list.appendChild(item);
    }
    const ok = $(".line-ok", li);
    if (problems.length === 0 && draft.lines[i].pattern.trim() !== "") {
      ok.textContent = "✓ right" + (c.targets ? " · " + c.targets + (c.targets === 1 ? " hand" : " hands") : "");
    } else {
      ok.textContent = "";
    }
    // The line in words under it: a line typed without colours reads "all in one suit" here,
    // before it is published.
    const words = $(".ed-words", li);
    words.textContent = problems.length === 0 && c.words
      ? "Reads: " + c.words + "." + (c.options && c.options.length ? " " + c.options.join(" ") : "")
      : "";
    li.classList.toggle("bad", problems.length > 0);
    $("input.pattern", li).setAttribute("aria-invalid", problems.length > 0 ? "true" : "false");
  }

  // ---- line checks, one at a time per line; the latest typing always gets checked
  async function check(i, typedAt) {
    const key = keys[i];
    let p = pending.get(key);
    if (!p) { p = { inFlight: false, again: false, typedAt: null }; pending.set(key, p); }
    if (p.typedAt === null) p.typedAt = typedAt;
    if (p.inFlight) { p.again = true; return; }
    p.inFlight = true;
    const started = p.typedAt;
    p.typedAt = null;
    const line = draft.lines[i];
    try {
      const res = await fetch("/api/v1/lines/check", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ line: line }),
      });
      const body = await res.json();
      const at = keys.indexOf(key);
      if (at >= 0) {
        if (res.ok) checks[at] = { problems: body.problems, targets: body.targets, drawing: body.drawing, words: body.words, options: body.options };
        else checks[at] = { problems: [body.detail || "could not check this line"], targets: null, drawing: checks[at].drawing };
        showCheck(at);
        if (started !== null) {
          window.cardEditorTimings.push(performance.now() - started);
          if (window.cardEditorTimings.length > 1000) window.cardEditorTimings.shift();
        }
      }
    } catch (e) {
      say("Not checked: no connection. Your typing is kept on this page.");
    } finally {
      p.inFlight = false;
      if (p.again) {
        p.again = false;
        const at = keys.indexOf(key);
        if (at >= 0) check(at, null);
      } else {
        pending.delete(key);
      }
    }
  }

  // ---- layout: sections in the order they first appear, lines in order within them
  function sectionOrder() {
    const names = [];
    for (const l of draft.lines) if (!names.includes(l.section)) names.push(l.section);
    return names;
  }

  // Keeps each section's lines together (the card file's sections are in first-seen order).
  function regroup() {
    const order = sectionOrder();
    const idx = draft.lines.map((l, i) => i);
    idx.sort((a, b) => order.indexOf(draft.lines[a].section) - order.indexOf(draft.lines[b].section) || a - b);
    draft.lines = idx.map((i) => draft.lines[i]);
    checks = idx.map((i) => checks[i]);
    keys = idx.map((i) => keys[i]);
  }

  const sectionsBox = $("#sections");

  function field(cls, label, value, attrs) {
    const input = document.createElement("input");
    input.className = cls;
    input.value = value;
    input.setAttribute("aria-label", label);
    input.autocomplete = "off";
    input.spellcheck = false;
    for (const [k, v] of Object.entries(attrs || {})) input.setAttribute(k, v);
    return input;
  }

  function select(cls, label, value, options) {
    const s = document.createElement("select");
    s.className = cls;
    s.setAttribute("aria-label", label);
    for (const [v, text] of options) {
      const o = document.createElement("option");
      o.value = v;
      o.textContent = text;
      s.appendChild(o);
    }
    s.value = value;
    return s;
  }

  function lineItem(i) {
    const l = draft.lines[i];
    const label = lineLabel(i);
    const li = document.createElement("li");
    li.className = "ed-line";
    li.dataset.key = keys[i];
    const row = document.createElement("div");
    row.className = "ed-fields";
    row.appendChild(field("pattern", "Pattern, " + label, l.pattern, { placeholder: "FF 2222:g 44:r 66:r 8888:g", maxlength: "300" }));
    row.appendChild(select("xc", "Exposed or concealed, " + label, l.concealed ? "C" : "X", [["X", "X"], ["C", "C"]]));
    row.appendChild(field("value", "Value, " + label, l.value, { inputmode: "numeric", size: "4", placeholder: "25", maxlength: "20" }));
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "remove secondary";
    remove.textContent = "Remove";
    remove.setAttribute("aria-label", "Remove " + label);
    row.appendChild(remove);
    li.appendChild(row);
    const more = document.createElement("details");
    more.className = "ed-more";
    if (l.suits || l.numbers || l.winds || l.note || l.id) more.open = true;
    const summary = document.createElement("summary");
    summary.textContent = "Options and note";
    more.appendChild(summary);
    const opts = document.createElement("div");
    opts.className = "ed-options";
    opts.appendChild(wrap("Suits", select("suits", "Suits, " + label, l.suits === "any" ? "any" : "", [["", "each colour a different suit"], ["any", "any suits, same or not"]])));
    opts.appendChild(wrap("Numbers", field("numbers", "Numbers, " + label, l.numbers, { placeholder: "as written, any, or 1 3 5", maxlength: "40" })));
    opts.appendChild(wrap("Winds", select("winds", "Winds, " + label, l.winds === "any" ? "any" : "", [["", "as written"], ["any", "any winds"]])));
    opts.appendChild(wrap("Note", field("note", "Note, " + label, l.note, { maxlength: "300" })));
    more.appendChild(opts);
    li.appendChild(more);
    const drawing = document.createElement("div");
    drawing.className = "ed-drawing";
    li.appendChild(drawing);
    const ok = document.createElement("p");
    ok.className = "line-ok";
    li.appendChild(ok);
    const words = document.createElement("p");
    words.className = "ed-words";
    words.setAttribute("aria-live", "polite");
    li.appendChild(words);
    const problems = document.createElement("ul");
    problems.className = "line-problems";
    problems.setAttribute("aria-live", "polite");
    li.appendChild(problems);
    return li;
  }

  function wrap(text, input) {
    const label = document.createElement("label");
    label.textContent = text + " ";
    input.removeAttribute("aria-label");
    label.appendChild(input);
    return label;
  }

  function render(focus) {
    regroup();
    sectionsBox.replaceChildren();
    sectionOrder().forEach((name, s) => {
      const sec = document.createElement("section");
      sec.className = "ed-section";
      sec.dataset.section = name;
      const h = document.createElement("h2");
      const nameInput = field("section-name", "Section name", name, { placeholder: "Section, as printed", maxlength: "80" });
      nameInput.id = "section-" + (s + 1);
      const lab = document.createElement("label");
      lab.htmlFor = nameInput.id;
      lab.className = "section-label";
      lab.textContent = "Section ";
      h.appendChild(lab);
      h.appendChild(nameInput);
      sec.appendChild(h);
      const ol = document.createElement("ol");
      ol.className = "ed-lines";
      draft.lines.forEach((l, i) => { if (l.section === name) ol.appendChild(lineItem(i)); });
      sec.appendChild(ol);
      const add = document.createElement("button");
      add.type = "button";
      add.className = "add-line secondary";
      add.textContent = "Add a line to " + (name || "this section");
      sec.appendChild(add);
      sectionsBox.appendChild(sec);
    });
    draft.lines.forEach((_, i) => showCheck(i));
    draft.lines.forEach((_, i) => { if (!checks[i].drawing && draft.lines[i].pattern) check(i, null); });
    showCardProblems();
    if (focus) {
      const el = document.querySelector(focus);
      if (el) el.focus();
    }
  }

  function indexOf(el) {
    const li = el.closest("li.ed-line");
    return li ? keys.indexOf(li.dataset.key) : -1;
  }

  function addLine(after, section) {
    const at = after === null ? draft.lines.length : after + 1;
    draft.lines.splice(at, 0, { section: section, pattern: "", value: "", concealed: false, suits: "", numbers: "", winds: "", note: "", id: "", unread: "" });
    checks.splice(at, 0, { problems: [], targets: null, drawing: null });
    const key = nextKey();
    keys.splice(at, 0, key);
    render('li.ed-line[data-key="' + key + '"] input.pattern');
    changed();
  }

  // ---- typing
  sectionsBox.addEventListener("input", (e) => {
    const t = e.target;
    const typedAt = performance.now();
    if (t.classList.contains("section-name")) {
      const old = t.closest("section").dataset.section;
      const name = t.value;
      if (name !== old && sectionOrder().includes(name)) {
        // Two sections of one name would merge: wait for the name to differ.
        return;
      }
      draft.lines.forEach((l, i) => { if (l.section === old) { l.section = name; check(i, typedAt); } });
      t.closest("section").dataset.section = name;
      const add = $(".add-line", t.closest("section"));
      add.textContent = "Add a line to " + (name || "this section");
      changed();
      return;
    }
    const i = indexOf(t);
    if (i < 0) return;
    const l = draft.lines[i];
    for (const k of ["pattern", "value", "numbers", "note"]) if (t.classList.contains(k)) l[k] = t.value;
    l.unread = "";
    check(i, typedAt);
    changed();
  });
  sectionsBox.addEventListener("change", (e) => {
    const t = e.target;
    const i = indexOf(t);
    if (i < 0) return;
    const l = draft.lines[i];
    if (t.classList.contains("xc")) l.concealed = t.value === "C";
    if (t.classList.contains("suits")) l.suits = t.value;
    if (t.classList.contains("winds")) l.winds = t.value;
    if (t.tagName === "SELECT") { l.unread = ""; check(i, performance.now()); changed(); }
  });
  sectionsBox.addEventListener("click", (e) => {
    const t = e.target;
    if (t.classList.contains("add-line")) {
      const name = t.closest("section").dataset.section;
      let last = null;
      draft.lines.forEach((l, i) => { if (l.section === name) last = i; });
      addLine(last, name);
    } else if (t.classList.contains("remove")) {
      const i = indexOf(t);
      const label = lineLabel(i);
      draft.lines.splice(i, 1);
      checks.splice(i, 1);
      keys.splice(i, 1);
      render(null);
      say(label + " removed.");
      const next = sectionsBox.querySelectorAll("input.pattern")[Math.min(i, draft.lines.length - 1)];
      if (next) next.focus(); else $("#add-section").focus();
      changed();
    }
  });
  // Enter in a line makes the next line of its section, ready for its pattern.
  sectionsBox.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" || e.target.tagName !== "INPUT") return;
    e.preventDefault();
    if (e.target.classList.contains("section-name")) {
      const first = $("input.pattern", e.target.closest("section"));
      if (first) first.focus();
      return;
    }
    const i = indexOf(e.target);
    if (i >= 0) addLine(i, draft.lines[i].section);
  });
  $("#add-section").addEventListener("click", () => {
    let name = "New section";
    for (let n = 2; sectionOrder().includes(name); n++) name = "New section " + n;
    addLine(null, name);
    const inputs = sectionsBox.querySelectorAll("input.section-name");
    const last = inputs[inputs.length - 1];
    last.focus();
    last.select();
  });

  // ---- saving
  function changed() {
    dirty = true;
    say("Not saved yet…");
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, 400);
  }

  function showCardProblems() {
    const list = $("#card-problems");
    list.replaceChildren();
    for (const p of draft.card_problems || []) {
      const li = document.createElement("li");
      li.textContent = "✗ " + p;
      list.appendChild(li);
    }
    const lines = checks.filter((c, i) => c.problems.length > 0 || draft.lines[i].unread).length;
    const total = (draft.card_problems || []).length;
    const state = $("#publish-state");
    if (draft.lines.length === 0) state.textContent = "Type at least one line to publish.";
    else if (lines + total === 0) state.textContent = draft.lines.length + " lines, all right: ready to publish.";
    else state.textContent = "Not ready: " + (lines ? lines + (lines === 1 ? " line has" : " lines have") + " problems" : "") + (lines && total ? "; " : "") + (total ? "the card: " + draft.card_problems.join("; ") : "") + ".";
  }

  async function save() {
    if (saving) { await saving; if (!dirty) return; }
    if (!dirty) return;
    dirty = false;
    const body = { revision: revision, head: draft.head, lines: draft.lines, public: draft.public };
    say("Saving…");
    saving = (async () => {
      try {
        const res = await fetch(api, {
          method: "PUT",
          credentials: "same-origin",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        const answer = await res.json();
        if (res.ok) {
          revision = answer.revision;
          draft.card_problems = answer.card_problems;
          // Problems only the whole card shows (two lines with one id) join the line's own.
          answer.line_problems.forEach((p, i) => {
            if (i < checks.length && !pending.has(keys[i])) { checks[i].problems = p; showCheck(i); }
          });
          showCardProblems();
          const at = new Date(answer.updated_at);
          say("Saved at " + clockTime(at) + ".");
        } else if (res.status === 409) {
          dirty = true;
          const box = $("#conflict");
          $(".text", box).textContent = answer.detail + " ";
          box.hidden = false;
          say("Not saved: another device saved first.");
        } else {
          dirty = true;
          say("Not saved: " + (answer.detail || "the service refused it") + ".");
        }
      } catch (e) {
        dirty = true;
        say("Not saved: no connection. Trying again in a few seconds; keep this page open.");
        clearTimeout(saveTimer);
        saveTimer = setTimeout(save, 5000);
      }
    })();
    await saving;
    saving = null;
  }

  $("#take-theirs").addEventListener("click", () => { dirty = false; location.reload(); });
  $("#keep-mine").addEventListener("click", async () => {
    const res = await fetch(api, { credentials: "same-origin" });
    if (res.ok) {
      revision = (await res.json()).revision;
      $("#conflict").hidden = true;
      dirty = true;
      save();
    }
  });
  window.addEventListener("beforeunload", (e) => {
    if (dirty || saving) { e.preventDefault(); e.returnValue = ""; }
  });

  // ---- paste
  $("#paste-go").addEventListener("click", async () => {
    await flush();
    const text = $("#paste-text").value;
    const res = await fetch(api + "/paste", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ revision: revision, text: text, replace: $("#paste-replace").checked }),
    });
    const answer = await res.json();
    if (!res.ok) { say("Not pasted: " + (answer.detail || "refused") + "."); return; }
    const before = draft.lines.length;
    draft = answer;
    revision = answer.revision;
    checks = draft.lines.map((_, i) => ({ problems: answer.line_problems[i] || [], targets: null, drawing: null }));
    keys = draft.lines.map(() => nextKey());
    $("#paste-text").value = "";
    render(null);
    const added = $("#paste-replace").checked ? draft.lines.length : draft.lines.length - before;
    const marked = answer.lines.filter((l) => l.unread).length;
    say(added + (added === 1 ? " line" : " lines") + " pasted" + (marked ? "; " + marked + " could not be read and " + (marked === 1 ? "is" : "are") + " marked below" : "") + ". Saved.");
  });

  async function flush() {
    clearTimeout(saveTimer);
    if (dirty || saving) await save();
    if (saving) await saving;
  }

  // ---- try a hand
  const tryHand = $("#try-hand");
  root.querySelectorAll(".tile-palette .pal").forEach((b) => b.addEventListener("click", () => {
    const now = tryHand.value.trim().split(/[\s,]+/).filter(Boolean);
    if (now.length >= 14) return;
    now.push(b.dataset.tile);
    tryHand.value = now.join(" ");
  }));
  $("#try-clear").addEventListener("click", () => { tryHand.value = ""; tryHand.focus(); });
  async function tryIt() {
    await flush();
    const out = $("#try-answer");
    out.textContent = "Trying…";
    const res = await fetch(api + "/try", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ hand: tryHand.value, ruleset: $("#try-ruleset").value }),
    });
    const a = await res.json();
    out.replaceChildren();
    const p = (text, cls) => { const el = document.createElement("p"); el.textContent = text; if (cls) el.className = cls; out.appendChild(el); };
    if (!res.ok) { p("✗ " + (a.detail || "could not try the hand"), "bad"); return; }
    const c = a.check;
    if (c.winning) {
      p("✓ Mah Jongg: it matches " + c.matches.map((m) => m.id + " (" + m.value + ", " + (m.concealed ? "C" : "X") + ")").join(", ") + ". Best: " + c.best.id + ".", "ok");
      p("Self-picked by East (" + a.ruleset + "): " + a.self_picked + ".");
      p("From South's discard: " + a.from_a_discard + ".");
    } else {
      p("✗ Not a winning hand on this card.", "bad");
      if (c.nearest && c.nearest.length) p("Nearest: " + c.nearest.slice(0, 3).map((n) => n.id + " (needs " + n.needs.join(" ") + ")").join("; ") + ".");
    }
  }
  $("#try-go").addEventListener("click", tryIt);
  tryHand.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); tryIt(); } });

  // ---- publish: what is typed is saved first, then published at that revision
  $("#publish-form").addEventListener("submit", async (e) => {
    if (e.target.dataset.ready === "1") return;
    e.preventDefault();
    await flush();
    if (dirty) { say("Not published: the draft could not be saved."); return; }
    $("#publish-revision").value = revision;
    e.target.dataset.ready = "1";
    e.target.submit();
  });
  $("#discard-form").addEventListener("submit", (e) => {
    if (!confirm("Throw this draft away? Its lines are lost.")) e.preventDefault();
    else dirty = false;
  });

  render(null);
  say(draft.lines.length ? "Loaded; saved at " + clockTime(new Date(draft.updated_at)) + "." : "Loaded. Add a section to begin.");
  if (!draft.lines.length) {
    // A blank card starts with one section and one line, ready to type.
    head.name.focus();
  }
  }
})();
