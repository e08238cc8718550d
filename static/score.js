// The scoring screen, and the "games waiting on this tablet" notes on the night page.
//
// A game is entered with as few taps as the table allows: who won, how, the 14 tiles (or a line
// picked from the card), Save. Every change is checked against the league's card by the engine
// (POST /api/v1/hands/check) and priced (POST /api/v1/scores/preview); Save stays disabled until
// the result stands, and the reason is said in the scorer's words. Saved games go into a queue
// per table kept in localStorage, each with its own idempotency key, and are sent in order; a
// game the network or the server could not take stays queued and goes again by itself, a game
// the server refused stays queued to be fixed. A service worker (/sw.js) keeps the page and its
// assets so the screen opens without network.
"use strict";

(function () {
  const WINDS = ["E", "S", "W", "N"];
  const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };
  const queueKey = (table) => "mahjong-league:queue:" + table;

  function readQueue(table) {
    try {
      const q = JSON.parse(localStorage.getItem(queueKey(table)) || "[]");
      return Array.isArray(q) ? q : [];
    } catch (_) {
      return [];
    }
  }
  function writeQueue(table, q) {
    if (q.length) localStorage.setItem(queueKey(table), JSON.stringify(q));
    else localStorage.removeItem(queueKey(table));
  }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

  // The night page: how many games each table has waiting on this device.
  document.querySelectorAll("[data-waiting]").forEach((el) => {
    const q = readQueue(el.dataset.waiting);
    if (!q.length) return;
    const refused = q.filter((j) => j.state === "refused").length;
    el.hidden = false;
    el.textContent = plural(q.length, "game", "games") + " waiting on this tablet" +
      (refused ? " (" + refused + " refused: open the scoring screen to fix " + (refused === 1 ? "it" : "them") + ")."
        : ": the scoring screen sends " + (q.length === 1 ? "it" : "them") + " when the network is back.");
  });

  // The night page's check-in: a search box that narrows the list as you type, and a count.
  const search = document.getElementById("checkin-search");
  if (search) {
    const rows = Array.from(document.querySelectorAll("#checkin-form label.check[data-name]"));
    const count = document.getElementById("checkin-count");
    const tally = () => {
      const ticked = rows.filter((r) => r.querySelector("input").checked).length;
      count.textContent = ticked + " of " + rows.length + " ticked; " + (rows.length - ticked) + " not here yet.";
    };
    search.hidden = false;
    document.querySelector("label[for=checkin-search]").hidden = false;
    search.addEventListener("input", () => {
      const q = search.value.trim().toLowerCase();
      rows.forEach((r) => { r.hidden = q !== "" && !r.dataset.name.includes(q); });
    });
    search.addEventListener("keydown", (e) => {
      // Enter ticks the only player left in the list, and never sends the form.
      if (e.key !== "Enter") return;
      e.preventDefault();
      const shown = rows.filter((r) => !r.hidden);
      if (shown.length === 1) {
        shown[0].querySelector("input").checked = true;
        search.value = "";
        rows.forEach((r) => { r.hidden = false; });
        tally();
      }
    });
    rows.forEach((r) => r.querySelector("input").addEventListener("change", tally));
    tally();
  }

  // The service worker keeps the scoring screen usable offline.
  if ("serviceWorker" in navigator && document.querySelector("#score, [data-waiting]")) {
    navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then((reg) => {
      if (reg.active) reg.active.postMessage({ keep: [location.pathname, "/static/style.css", "/static/score.js"] });
    }).catch(() => {});
  }

  const form = document.getElementById("score");
  if (!form) return;

  const table = form.dataset.table;
  const card = form.dataset.card;
  const ruleset = JSON.parse(form.dataset.ruleset);
  const gamesPerTable = Number(form.dataset.games);
  /** The night is closed: no entry; games kept here wait for it to be reopened. */
  const nightClosed = form.dataset.closed === "true";
  const nightNumber = form.dataset.nightNumber;
  /** What the league calls a session: "night", or "round" in a tournament. */
  const session = form.dataset.session || "night";
  const players = JSON.parse(form.dataset.players);
  const byId = {};
  players.forEach((p) => { byId[p.id] = p; });
  /** The next number as the server last said (the page as served, then after every send). */
  let serverNumber = Number(form.elements.number.value);
  const $ = (id) => document.getElementById(id);
  const verdict = $("verdict");
  const points = $("points");
  const sent = $("sent");
  const save = $("save");
  const handView = $("hand-view");
  const handInput = $("hand");
  const exposureInputs = Array.from(form.querySelectorAll(".exposure-input"));
  const picker = $("picker");

  // A game kept by the earlier version of this screen (one per table) joins the queue with its
  // own key, so a copy the server already stored is not stored twice.
  const older = localStorage.getItem("mahjong-league:pending:" + table);
  if (older) {
    try {
      const job = JSON.parse(older);
      const q = readQueue(table);
      if (job && job.key && job.game && !q.some((j) => j.key === job.key)) {
        q.unshift({ key: job.key, table: table, game: job.game, label: "Game " + (job.game.number || "?") + " (kept earlier)", state: "waiting" });
        writeQueue(table, q);
      }
    } catch (_) { /* unreadable: nothing to keep */ }
    localStorage.removeItem("mahjong-league:pending:" + table);
  }

  let number = serverNumber;
  let savedUpTo = serverNumber - 1;
  /** A refused game is being fixed: its number stays until it is saved again. */
  let fixing = false;
  let tiles = [];
  /** Exposed groups as {tile, size}; their tiles come from the hand's layout. */
  let exposed = [];
  /** A hand filled from the card has only natural tiles: until the scorer says where its jokers
   *  are (a tap on a group) or that there are none, it is not saved — else a hand with jokers
   *  would be scored jokerless by mistake. */
  let jokersAsked = false;
  /** How the last accepted hand fell into groups: {target, groups, jokers}. */
  let hint = null;
  let tapMode = "expose";
  let lastCheck = null;

  // ---------------------------------------------------------------- the table's players
  function windOf(playerId, n) {
    const seat = players.findIndex((p) => p.id === Number(playerId));
    const east = (n - 1) % players.length;
    return WINDS[(seat + players.length - east) % players.length];
  }
  function nameOf(id) { return byId[id] ? byId[id].name : "player " + id; }
  function value(name) {
    const el = form.querySelector("input[name=" + name + "]:checked");
    return el ? el.value : "";
  }
  function winner() {
    const w = value("won");
    return /^\d+$/.test(w) ? Number(w) : null;
  }
  function outcome() {
    const w = value("won");
    if (w === "wall" || w === "redeal") return w;
    return w ? "mahjong" : "";
  }

  // ---------------------------------------------------------------- tiles and groups
  const FACES = { RD: ["R", "Red"], GD: ["G", "Green"], WD: ["0", "Soap"], F: ["F", "Flower"], J: ["J", "Joker"],
    N: ["N", "North"], E: ["E", "East"], W: ["W", "West"], S: ["S", "South"] };
  const SUITS = { B: "Bam", C: "Crak", D: "Dot" };
  function face(t) {
    if (FACES[t]) return FACES[t];
    const m = /^([1-9])([BCD])$/.exec(t);
    return m ? [m[1], SUITS[m[2]]] : [t, ""];
  }
  function kind(t) {
    const m = /^[1-9]([BCD])$/.exec(t);
    if (m) return { B: "bam", C: "crak", D: "dot" }[m[1]];
    return { RD: "dragon red", GD: "dragon green", WD: "dragon white", F: "flower", J: "joker" }[t] || "wind";
  }
  function tileEl(t) {
    const s = document.createElement("span");
    s.className = "tile small " + kind(t);
    const [f, w] = face(t);
    const a = document.createElement("span"); a.className = "face"; a.textContent = f;
    const b = document.createElement("span"); b.className = "word"; b.textContent = w;
    s.append(a, " ", b);
    return s;
  }
  function counts(list) {
    const c = {};
    list.forEach((t) => { c[t] = (c[t] || 0) + 1; });
    return c;
  }
  function sameTiles(a, b) {
    if (a.length !== b.length) return false;
    const ca = counts(a), cb = counts(b);
    return Object.keys(ca).every((k) => ca[k] === cb[k]);
  }
  function groupSizes(pattern) {
    return pattern.split(/\s+/).filter((t) => t && !["+", "=", "x", "X", "*"].includes(t))
      .map((t) => Array.from(t.split(":")[0]).length);
  }
  function parseTiles(text) {
    return text.trim().split(/[\s,]+/).filter((t) => t).map((t) => t.toUpperCase());
  }

  /** The hand as groups: from the engine's match when it still holds, else runs as entered. */
  function layout() {
    if (hint) {
      const left = counts(hint.jokers);
      const groups = [];
      let i = 0;
      hint.groups.forEach((size) => {
        const slice = hint.target.slice(i, i + size);
        i += size;
        const t = slice[0];
        if (size >= 3 && slice.every((x) => x === t)) {
          const j = Math.min(left[t] || 0, size);
          left[t] = (left[t] || 0) - j;
          groups.push({ tile: t, size: size, tiles: Array(size - j).fill(t).concat(Array(j).fill("J")) });
        } else {
          groups.push({ tile: null, size: size, tiles: slice });
        }
      });
      const all = [].concat(...groups.map((g) => g.tiles));
      if (sameTiles(all, tiles)) return groups;
    }
    const groups = [];
    tiles.forEach((t) => {
      const g = groups[groups.length - 1];
      const base = g && (g.tiles.find((x) => x !== "J") || "J");
      if (g && (t === base || (t === "J" && g.tiles.length < 6))) {
        g.tiles.push(t);
      } else {
        groups.push({ tiles: [t] });
      }
    });
    groups.forEach((g) => {
      const natural = g.tiles.find((x) => x !== "J");
      g.size = g.tiles.length;
      g.tile = g.size >= 3 && natural && g.tiles.every((x) => x === natural || x === "J") ? natural : null;
    });
    return groups;
  }

  /** Each exposure paired with a group of the layout (tile and size), or dropped. */
  function markExposed(groups) {
    const kept = [];
    exposed.forEach((e) => {
      const g = groups.find((x) => !x.exposed && x.tile === e.tile && x.size === e.size);
      if (g) { g.exposed = true; kept.push(e); }
    });
    exposed = kept;
    return groups;
  }
  function exposureTiles() {
    return markExposed(layout()).filter((g) => g.exposed).map((g) => g.tiles.join(" "));
  }

  function drawHand() {
    const groups = markExposed(layout());
    handView.textContent = "";
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = tiles.length + "/14";
    handView.appendChild(count);
    groups.forEach((g) => {
      const el = document.createElement(g.tile ? "button" : "span");
      el.className = "group" + (g.exposed ? " exposed" : "");
      if (g.tile) {
        el.type = "button";
        el.setAttribute("aria-pressed", g.exposed ? "true" : "false");
        el.addEventListener("click", () => tapGroup(g));
      }
      g.tiles.forEach((t) => el.appendChild(tileEl(t)));
      if (g.exposed) {
        const badge = document.createElement("span");
        badge.className = "badge";
        badge.textContent = "exposed";
        el.appendChild(badge);
      }
      handView.appendChild(el);
    });
    handInput.value = tiles.join(" ");
    const ex = exposureTiles();
    exposureInputs.forEach((input, i) => { input.value = ex[i] || ""; });
    document.querySelector(".hand-tools").hidden = tiles.length === 0;
  }

  function tapGroup(g) {
    if (tapMode === "expose") {
      const i = exposed.findIndex((e) => e.tile === g.tile && e.size === g.size);
      if (g.exposed && i >= 0) exposed.splice(i, 1);
      else exposed.push({ tile: g.tile, size: g.size });
    } else {
      // Jokers: one more joker in the group each tap; a group of jokers only goes back to naturals.
      const naturals = g.tiles.filter((t) => t !== "J").length;
      if (!hint) {
        const now = layout();
        hint = { target: [].concat(...now.map((x) => x.tile ? Array(x.size).fill(x.tile) : x.tiles)), groups: now.map((x) => x.size), jokers: [].concat(...now.map((x) => x.tile ? x.tiles.filter((t) => t === "J").map(() => x.tile) : [])) };
      }
      if (naturals > 0) {
        const at = tiles.lastIndexOf(g.tile);
        tiles[at] = "J";
        hint.jokers.push(g.tile);
        jokersAsked = false;
      } else {
        for (let k = 0; k < g.size; k++) {
          tiles[tiles.indexOf("J")] = g.tile;
          hint.jokers.splice(hint.jokers.indexOf(g.tile), 1);
        }
      }
    }
    changed();
  }

  function setTapMode(mode) {
    tapMode = mode;
    $("tap-expose").setAttribute("aria-pressed", String(mode === "expose"));
    $("tap-joker").setAttribute("aria-pressed", String(mode === "joker"));
    $("tap-help").textContent = mode === "expose"
      ? "Tap a group of 3 or more to mark it exposed."
      : "Tap a group to put one more joker in it.";
  }
  $("no-jokers").addEventListener("click", () => { jokersAsked = false; changed(); });
  $("tap-expose").addEventListener("click", () => setTapMode("expose"));
  $("tap-joker").addEventListener("click", () => setTapMode("joker"));

  function changed() {
    $("jokers-ask").hidden = !jokersAsked || tiles.length === 0;
    drawHand();
    schedule();
  }

  // ---------------------------------------------------------------- the tile picker
  picker.hidden = false;
  const pickerRows = Array.from(picker.querySelectorAll(".picker-row")).map((r) => Array.from(r.querySelectorAll("button")));
  pickerRows[0][0].tabIndex = 0;
  picker.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-tile]");
    if (!b) return;
    if (tiles.length >= 14) {
      say("The hand already has 14 tiles: remove one first.", "bad");
      return;
    }
    tiles.push(b.dataset.tile);
    changed();
  });
  picker.addEventListener("keydown", (e) => {
    const b = e.target.closest("button[data-tile]");
    if (!b) return;
    const r = pickerRows.findIndex((row) => row.includes(b));
    const c = pickerRows[r].indexOf(b);
    let to = null;
    if (e.key === "ArrowRight") to = pickerRows[r][Math.min(c + 1, pickerRows[r].length - 1)];
    else if (e.key === "ArrowLeft") to = pickerRows[r][Math.max(c - 1, 0)];
    else if (e.key === "ArrowDown") { const row = pickerRows[Math.min(r + 1, pickerRows.length - 1)]; to = row[Math.min(c, row.length - 1)]; }
    else if (e.key === "ArrowUp") { const row = pickerRows[Math.max(r - 1, 0)]; to = row[Math.min(c, row.length - 1)]; }
    else if (e.key === "Home") to = pickerRows[r][0];
    else if (e.key === "End") to = pickerRows[r][pickerRows[r].length - 1];
    if (!to) return;
    e.preventDefault();
    pickerRows.forEach((row) => row.forEach((x) => { x.tabIndex = -1; }));
    to.tabIndex = 0;
    to.focus();
  });
  $("undo").addEventListener("click", () => { tiles.pop(); hint = null; changed(); });
  $("clear").addEventListener("click", () => { tiles = []; exposed = []; hint = null; jokersAsked = false; changed(); });

  // Typed tiles (and a keyboard's Enter never sends a half-entered game).
  handInput.addEventListener("input", () => { tiles = parseTiles(handInput.value).slice(0, 20); hint = null; drawHandKeepingInput(); schedule(); });
  exposureInputs.forEach((input) => input.addEventListener("change", () => {
    exposed = exposureInputs.map((i) => parseTiles(i.value)).filter((l) => l.length >= 3).map((l) => ({ tile: l.find((t) => t !== "J"), size: l.length }));
    changed();
  }));
  function drawHandKeepingInput() {
    const typed = handInput.value;
    drawHand();
    handInput.value = typed;
  }
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.tagName === "INPUT" && e.target.type !== "radio" && e.target.type !== "checkbox") {
      e.preventDefault();
    }
  });

  // ---------------------------------------------------------------- who won, how
  function showChoices() {
    const w = winner();
    const mahjong = outcome() === "mahjong" || outcome() === "";
    form.querySelectorAll(".mahjong-only").forEach((el) => { el.hidden = !mahjong; });
    const east = w !== null && windOf(w, number) === "E";
    form.querySelectorAll(".east-only").forEach((el) => { el.hidden = !east; });
    form.querySelectorAll("[data-discarder]").forEach((el) => { el.hidden = Number(el.dataset.discarder) === w; });
    const how = form.querySelector("input[name=how]:checked");
    if (how && how.closest("label").hidden) form.querySelector("input[name=how][value=self_pick]").checked = true;
  }
  form.querySelectorAll("input[name=won], input[name=how]").forEach((r) => r.addEventListener("change", () => { showChoices(); schedule(); }));
  form.querySelectorAll("#rare select, #rare input").forEach((r) => r.addEventListener("change", schedule));

  // ---------------------------------------------------------------- from the card
  let cardLines = null;
  $("by-tiles").addEventListener("click", () => entryMode("tiles"));
  $("by-card").addEventListener("click", () => entryMode("card"));
  document.querySelector(".entry-modes").hidden = false;
  function entryMode(mode) {
    $("by-tiles").setAttribute("aria-pressed", String(mode === "tiles"));
    $("by-card").setAttribute("aria-pressed", String(mode === "card"));
    $("tiles-entry").hidden = mode !== "tiles";
    $("card-entry").hidden = mode !== "card";
    if (mode === "card") loadCard();
  }
  async function loadCard() {
    if (cardLines) return;
    const list = $("card-lines");
    list.textContent = "Loading the card…";
    try {
      const res = await fetch("/api/v1/cards/" + encodeURIComponent(card), { credentials: "same-origin" });
      if (!res.ok) throw new Error(String(res.status));
      const c = await res.json();
      cardLines = [];
      const nav = $("card-sections");
      nav.textContent = "";
      (c.sections || []).forEach((s) => {
        s.lines.forEach((l) => cardLines.push(Object.assign({ section: s.name }, l)));
        const b = document.createElement("button");
        b.type = "button";
        b.className = "small-button secondary";
        b.textContent = s.name;
        b.addEventListener("click", () => { $("line-search").value = s.name; showLines(); });
        nav.appendChild(b);
      });
      showLines();
    } catch (_) {
      list.textContent = "The card could not be loaded (no network?). Enter the tiles instead.";
      cardLines = null;
    }
  }
  function showLines() {
    const q = $("line-search").value.trim().toLowerCase();
    const compact = q.replace(/\s+/g, "");
    const list = $("card-lines");
    list.textContent = "";
    $("line-targets").hidden = true;
    const shown = cardLines.filter((l) => !q || String(l.value) === q || l.section.toLowerCase() === q ||
      l.id.toLowerCase().includes(q) || l.patterns.some((p) => p.toLowerCase().replace(/\s+/g, "").includes(compact)));
    shown.forEach((l) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "line";
      b.dataset.line = l.id;
      b.textContent = l.id + " · " + l.patterns[0] + " · " + l.value + (l.concealed ? " · C" : " · X");
      b.addEventListener("click", () => pickLine(l));
      li.appendChild(b);
      list.appendChild(li);
    });
    if (!shown.length) list.textContent = "No line matches “" + q + "”.";
  }
  $("line-search").addEventListener("input", () => { if (cardLines) showLines(); });
  function describe(target, sizes) {
    const parts = [];
    let i = 0;
    sizes.forEach((size) => {
      const g = target.slice(i, i + size);
      i += size;
      const suits = new Set(g.map((t) => (/^[1-9]([BCD])$/.exec(t) || [])[1]).filter((x) => x));
      parts.push(g.map((t) => face(t)[0]).join("") + (suits.size === 1 ? " " + SUITS[[...suits][0]] : ""));
    });
    return parts.join(" · ");
  }
  async function pickLine(l) {
    const box = $("target-list");
    $("line-targets").hidden = false;
    $("line-picked").textContent = l.id + ": which tiles?";
    box.textContent = "";
    let data;
    try {
      const res = await fetch("/api/v1/cards/" + encodeURIComponent(card) + "/lines/" + encodeURIComponent(l.id), { credentials: "same-origin" });
      if (!res.ok) throw new Error(String(res.status));
      data = await res.json();
    } catch (_) {
      $("line-picked").textContent = "The line could not be loaded (no network?).";
      return;
    }
    data.targets.forEach((t) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "target";
      b.textContent = describe(t.tiles, t.groups);
      b.addEventListener("click", () => {
        tiles = t.tiles.slice();
        exposed = [];
        hint = { target: t.tiles.slice(), groups: t.groups.slice(), jokers: [] };
        jokersAsked = true;
        setTapMode("joker");
        entryMode("tiles");
        changed();
        handView.scrollIntoView({ block: "nearest" });
      });
      li.appendChild(b);
      box.appendChild(li);
    });
    if (data.targets.length === 1) box.querySelector("button").click();
  }

  // ---------------------------------------------------------------- checking and pricing
  let timer = null;
  let generation = 0;
  function schedule() {
    clearTimeout(timer);
    save.disabled = true;
    timer = setTimeout(evaluate, 120);
  }
  async function post(url, body, headers) {
    const res = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: Object.assign({ "Content-Type": "application/json" }, headers || {}),
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await res.json(); } catch (_) { data = null; }
    return { status: res.status, data: data };
  }
  function say(text, cls) {
    verdict.textContent = "";
    const p = document.createElement("p");
    p.className = cls || "";
    p.textContent = (cls === "bad" ? "✗ " : cls === "ok" ? "✓ " : "") + text;
    verdict.appendChild(p);
  }
  function ready(ok) { save.disabled = !ok; }

  function seats() { return players.map((p) => windOf(p.id, number)); }
  function deadCalls() {
    const calls = [];
    form.querySelectorAll("select[name=dead_player]").forEach((sel, i) => {
      if (!sel.value) return;
      const caller = form.querySelectorAll("select[name=dead_called_by]")[i].value;
      const reason = form.querySelectorAll("input[name=dead_reason]")[i].value.trim();
      const contested = form.querySelector("input[name=dead_contested][value='" + i + "']").checked;
      const upheld = form.querySelector("input[name=dead_upheld][value='" + i + "']").checked;
      const call = { player: Number(sel.value), contested: contested };
      if (caller) call.called_by = Number(caller);
      if (reason) call.reason = reason;
      if (contested) call.upheld = upheld;
      calls.push(call);
    });
    return calls;
  }
  /** The game as the API takes it: players by id. */
  function game() {
    const o = outcome();
    const g = { number: number, outcome: o, dead: deadCalls() };
    if (o === "mahjong") {
      g.winner = winner();
      g.hand = tiles.join(" ");
      g.exposures = exposureTiles();
      const how = value("how") || "self_pick";
      if (how.startsWith("discard:")) {
        g.won_by = "discard";
        g.discarder = Number(how.slice(8));
      } else {
        g.won_by = how;
      }
    }
    return g;
  }
  /** The result as the preview takes it: players by wind. */
  function result(g) {
    const r = { seats: seats(), outcome: g.outcome, dead: [] };
    if (g.outcome === "mahjong") {
      r.winner = windOf(g.winner, number);
      r.hand = g.hand;
      r.exposures = g.exposures;
      r.won_by = g.won_by;
      if (g.discarder) r.discarder = windOf(g.discarder, number);
    }
    return r;
  }

  async function evaluate() {
    const mine = ++generation;
    points.textContent = "";
    const o = outcome();
    if (!o) { say("Tap who won, or Wall game."); return ready(false); }
    const g = game();
    if (o === "mahjong") {
      const who = nameOf(g.winner);
      if (tiles.length === 0) { say("Enter " + who + "'s 14 tiles, or pick the line from the card."); return ready(false); }
      if (tiles.length !== 14) {
        say(who + "'s hand has " + tiles.length + " of 14 tiles" + (tiles.length > 14 ? ": remove " + (tiles.length - 14) + "." : "."), "bad");
        return ready(false);
      }
      if (jokersAsked) {
        say("Jokers in " + who + "'s hand? Tap a group for each joker in it, or tap No jokers.", "waiting");
        return ready(false);
      }
      let r;
      try {
        r = await post("/api/v1/hands/check", { card: card, hand: g.hand, exposures: g.exposures });
      } catch (_) { r = null; }
      if (mine !== generation) return;
      if (r === null || r.status >= 500) {
        say("Not checked: no network. Save keeps the game on this tablet; the server checks it when it is sent.", "waiting");
        return ready(true);
      }
      if (r.status !== 200) {
        say(who + "'s hand: " + ((r.data && r.data.detail) || "it cannot be read."), "bad");
        return ready(false);
      }
      lastCheck = r.data;
      if (!r.data.winning || !r.data.best) {
        const n = (r.data.nearest || [])[0];
        let text = who + "'s hand matches no line";
        if (n) text += "; nearest: " + n.id + (n.needs.length ? ", needs " + n.needs.join(" ") : "") + (n.reason ? " (" + n.reason + ")" : "");
        say(text + ".", "bad");
        return ready(false);
      }
      const b = r.data.best;
      const before = JSON.stringify(layout());
      hint = { target: b.target, groups: groupSizes(b.pattern), jokers: b.jokers };
      if (JSON.stringify(layout()) !== before) drawHand();
      say(who + ": " + b.id + " · " + b.value + (b.jokerless ? " · jokerless" : "") + (b.concealed ? " · concealed" : "") +
        (g.exposures.length ? " · " + plural(g.exposures.length, "exposure", "exposures") : ""), "ok");
    } else {
      say(o === "wall" ? "Wall game: nobody went out." : "Redeal: no game; game " + number + " is played again.", "ok");
    }
    let p;
    try {
      p = await post("/api/v1/scores/preview", { card: card, ruleset: ruleset, result: result(g) });
    } catch (_) { p = null; }
    if (mine !== generation) return;
    if (p === null || p.status >= 500) return ready(true);
    if (p.status !== 200) {
      say((p.data && p.data.detail) || "This result cannot be scored.", "bad");
      return ready(false);
    }
    const names = {};
    players.forEach((pl) => { names[windOf(pl.id, number)] = pl.name; });
    (p.data.breakdown || []).forEach((s) => {
      const li = document.createElement("li");
      li.textContent = (names[s.seat] || s.seat) + " " + signed(s.score);
      li.title = s.text;
      points.appendChild(li);
    });
    if (g.dead.length) {
      const li = document.createElement("li");
      li.textContent = "dead-hand calls are settled when saved";
      points.appendChild(li);
    }
    ready(true);
  }
  function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + Math.abs(n) : "0"; }

  // ---------------------------------------------------------------- the queue
  function newKey() {
    if (crypto.randomUUID) return "game-" + crypto.randomUUID();
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return "game-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }
  /** A game in a scorer's words: "Bea went out on Cy's discard", "Ann went out, self-pick". */
  function inWords(g) {
    if (g.outcome === "wall") return "wall game";
    if (g.outcome === "redeal") return "redeal";
    const how = g.won_by === "discard" ? " on " + nameOf(g.discarder) + "'s discard" :
      g.won_by === "self_pick" ? ", self-pick" : g.won_by === "joker_exchange" ? ", joker exchange" :
      g.won_by === "heavenly" ? ", heavenly hand" : g.won_by === "earthly" ? ", earthly hand" : "";
    return nameOf(g.winner) + " went out" + how;
  }
  function label(g) { return "Game " + g.number + ": " + inWords(g); }
  /** The games on this tablet that wait for the scorer (refused, or their number taken). */
  function needingYou() { return readQueue(table).filter((j) => j.state === "refused" || j.state === "clash"); }
  /** The status line while games need the scorer: it says so until they are dealt with. */
  function stillNeeded(prefix) {
    const open = needingYou();
    if (!open.length) return false;
    const which = open.map((j) => "game " + j.game.number).join(", ");
    status((prefix ? prefix + " " : "") + "Not saved yet: " + which + " — see below and choose.", "bad");
    return true;
  }
  /** The next free number: past the server's games, the saved ones and those queued here
   *  (but `except`, the game being given a number). */
  function nextNumber(except) {
    let n = Math.max(serverNumber, savedUpTo + 1);
    readQueue(table).forEach((j) => {
      if (j.key === except || j.state === "clash") return;
      if (j.game.outcome !== "redeal" && Number.isFinite(j.game.number)) n = Math.max(n, j.game.number + 1);
    });
    return n;
  }

  /** A game whose number was taken is kept as the next free number, with a new key (it is a new
   *  request), and sent. */
  function keepAsNext(key) {
    const q = readQueue(table);
    const j = q.find((x) => x.key === key);
    if (!j) return;
    const was = j.game.number;
    j.game.number = nextNumber(key);
    j.key = newKey();
    j.state = "waiting";
    j.label = label(j.game);
    delete j.theirs;
    delete j.reason;
    writeQueue(table, q);
    status("Yours (game " + was + " on this tablet) goes as game " + j.game.number + ": sending…", "");
    if (!fixing) setNumber(nextNumber());
    renderQueue();
    flush();
  }

  /** Takes the table as the server has it now — its games, each player's points and the next
   *  number — from this screen as the server renders it, so another tablet's games show here
   *  too. Offline (or a closed night's page), nothing changes. */
  async function syncFromServer() {
    let html;
    try {
      const res = await fetch(location.pathname, { credentials: "same-origin" });
      if (!res.ok) return;
      html = await res.text();
    } catch (_) { return; }
    const doc = new DOMParser().parseFromString(html, "text/html");
    const theirs = doc.getElementById("score");
    if (!theirs) return;
    // The night was closed or reopened meanwhile: the screen as it is now (the queue is kept).
    if ((theirs.dataset.closed === "true") !== nightClosed) { location.reload(); return; }
    const n = Number(theirs.querySelector("input[name=number]").value);
    if (Number.isFinite(n) && n > 0) serverNumber = n;
    doc.querySelectorAll("[data-total-of]").forEach((cell) => {
      const mine = document.querySelector("[data-total-of='" + cell.dataset.totalOf + "']");
      if (mine) mine.textContent = cell.textContent;
    });
    const played = doc.getElementById("played");
    if (played) {
      $("played").innerHTML = played.innerHTML;
      $("played-count").textContent = String($("played").children.length);
      document.querySelector("details.played").hidden = $("played").children.length === 0;
    }
    if (!fixing) setNumber(nextNumber());
  }
  function status(text, cls) {
    sent.className = "sent " + (cls || "");
    sent.textContent = text;
  }

  function renderQueue() {
    const q = readQueue(table);
    $("queue").hidden = q.length === 0;
    $("queue-title").textContent = plural(q.length, "game", "games") + " waiting on this tablet";
    const list = $("queue-list");
    list.textContent = "";
    q.forEach((j) => {
      const li = document.createElement("li");
      li.className = j.state;
      const text = document.createElement("span");
      text.textContent = j.label + (j.state === "refused" ? " — refused: " + j.reason :
        j.state === "closed" ? " — kept: " + session + " " + j.night + " is closed; it is sent by itself once an organizer reopens it" :
        " — not sent yet");
      li.appendChild(text);
      if (j.state === "clash") {
        // The number was taken on another device: both games in words, and the two ways out.
        text.textContent = "Game " + j.game.number + " was entered on another device: " + j.theirs +
          ". Yours: " + inWords(j.game) + ".";
        const keep = document.createElement("button");
        keep.type = "button";
        keep.className = "small-button";
        keep.textContent = "Keep mine as the next game";
        keep.addEventListener("click", () => keepAsNext(j.key));
        const same = document.createElement("button");
        same.type = "button";
        same.className = "small-button secondary";
        same.textContent = "Same game: drop mine";
        same.addEventListener("click", () => {
          writeQueue(table, readQueue(table).filter((x) => x.key !== j.key));
          renderQueue();
          if (!fixing) setNumber(nextNumber());
          if (!stillNeeded()) status("Dropped yours: game " + j.game.number + " is the one entered on the other device.", "saved");
        });
        li.append(" ", keep, " ", same);
      }
      if (j.state === "closed") {
        const drop = document.createElement("button");
        drop.type = "button";
        drop.className = "small-button secondary";
        drop.textContent = "Delete game " + j.game.number;
        drop.addEventListener("click", () => {
          if (drop.dataset.sure) {
            writeQueue(table, readQueue(table).filter((x) => x.key !== j.key));
            renderQueue();
          } else {
            drop.dataset.sure = "1";
            drop.textContent = "Tap again to delete game " + j.game.number;
          }
        });
        li.append(" ", drop);
      }
      if (j.state === "refused") {
        const fix = document.createElement("button");
        fix.type = "button";
        fix.className = "small-button";
        fix.textContent = "Fix game " + j.game.number;
        fix.addEventListener("click", () => fixJob(j.key));
        const drop = document.createElement("button");
        drop.type = "button";
        drop.className = "small-button secondary";
        drop.textContent = "Delete game " + j.game.number;
        drop.addEventListener("click", () => {
          if (drop.dataset.sure) {
            writeQueue(table, readQueue(table).filter((x) => x.key !== j.key));
            renderQueue();
            setNumber(nextNumber());
          } else {
            drop.dataset.sure = "1";
            drop.textContent = "Tap again to delete game " + j.game.number;
          }
        });
        li.append(" ", fix, " ", drop);
      }
      list.appendChild(li);
    });
  }

  function addPlayed(view) {
    const summary = (view.outcome === "mahjong" ? "Mah Jongg" + (view.line ? ", " + view.line : "") :
      view.outcome === "wall" ? "Wall game" : "Redeal") + ": " +
      view.scores.map((s) => s.player.name + " " + signed(s.score)).join(", ");
    const li = document.createElement("li");
    li.textContent = "Game " + view.number + ": " + summary;
    $("played").appendChild(li);
    $("played-count").textContent = String($("played").children.length);
    document.querySelector("details.played").hidden = false;
    view.scores.forEach((s) => {
      const cell = form.ownerDocument.querySelector("[data-total-of='" + s.player.id + "']");
      if (cell) cell.textContent = String(Number(cell.textContent) + s.score);
    });
    return summary;
  }

  let retryIn = 2000;
  let retryTimer = null;
  let flushing = false;
  /** Games refused because the night is closed are tried again this often, so they are sent
   *  by themselves once an organizer reopens it. */
  const CLOSED_RETRY = 15000;
  let closedTriedAt = 0;
  async function flush() {
    if (flushing) return;
    flushing = true;
    clearTimeout(retryTimer);
    let sentAny = false;
    const kept = readQueue(table);
    if (kept.some((j) => j.state === "closed") && Date.now() - closedTriedAt >= CLOSED_RETRY) {
      closedTriedAt = Date.now();
      kept.forEach((j) => { if (j.state === "closed") j.state = "waiting"; });
      writeQueue(table, kept);
    }
    try {
      for (;;) {
        const job = readQueue(table).find((j) => j.state === "waiting");
        if (!job) break;
        let r;
        try {
          r = await post("/api/v1/tables/" + table + "/games", job.game, { "Idempotency-Key": job.key });
        } catch (_) { r = null; }
        if (r === null || r.status >= 500 || r.status === 429 || r.status === 401) {
          // No answer, the server's trouble, or logged out: the game stays and goes again with
          // the same key, so it is stored once.
          const why = r === null ? "no network" : r.status === 401 ? "this tablet is logged out (log in again; nothing is lost)" : "the server is busy (" + r.status + ")";
          status("Not saved yet: " + why + ". " + plural(readQueue(table).filter((j) => j.state === "waiting").length, "game waits", "games wait") + " on this tablet and will be sent automatically.", "waiting");
          retryTimer = setTimeout(flush, retryIn);
          retryIn = Math.min(retryIn * 2, 15000);
          break;
        }
        retryIn = 2000;
        const q = readQueue(table);
        const at = q.findIndex((j) => j.key === job.key);
        sentAny = true;
        if (r.status === 200 || r.status === 201) {
          if (at >= 0) q.splice(at, 1);
          writeQueue(table, q);
          if (r.data.outcome !== "redeal") savedUpTo = Math.max(savedUpTo, r.data.number);
          const summary = addPlayed(r.data);
          // A refusal still waiting keeps the status line: it is not overwritten by a success.
          if (!stillNeeded("Saved game " + r.data.number + ".")) status("Saved game " + r.data.number + ": " + summary, "saved");
        } else if (r.status === 409 && r.data && r.data.night_closed) {
          // The night (round) is closed: the game stays here, not retried at once, and goes by itself
          // when the night is reopened.
          const n = r.data.night_closed.number;
          if (at >= 0) { q[at].state = "closed"; q[at].night = n; }
          writeQueue(table, q);
          status("Not saved: " + session + " " + n + " is closed. Game " + job.game.number + " stays on this tablet and is sent by itself once an organizer reopens the " + session + ".", "bad");
        } else if (r.status === 409 && r.data && r.data.taken) {
          // The number was taken on another device: the scorer says whether it is the same game.
          if (at >= 0) { q[at].state = "clash"; q[at].theirs = r.data.taken.summary; q[at].reason = "number taken"; }
          writeQueue(table, q);
          status("Not saved: game " + job.game.number + " was entered on another device. Below: keep yours as the next game, or drop it if it is the same game.", "bad");
        } else {
          const detail = (r.data && r.data.detail) || ("the server answered " + r.status);
          if (at >= 0) { q[at].state = "refused"; q[at].reason = detail; }
          writeQueue(table, q);
          status("Not saved: game " + job.game.number + ": " + detail + " It waits below: tap Fix.", "bad");
        }
        renderQueue();
      }
    } finally {
      flushing = false;
      renderQueue();
      if (!fixing) setNumber(Math.max(number, nextNumber()));
      // After every send the screen takes the table as the server has it (this also refreshes
      // the copy of the page the service worker keeps).
      if (sentAny) syncFromServer();
    }
  }

  function setNumber(n) {
    number = n;
    form.elements.number.value = String(n);
    document.querySelectorAll("#game-number, .save-number").forEach((el) => { el.textContent = String(n); });
    const done = n > gamesPerTable;
    // After the last game there is no next game: no game number, no winds for it.
    $("game-of").hidden = done || nightClosed;
    $("all-of").hidden = !done;
    players.forEach((p) => {
      const el = document.querySelector("[data-wind-of='" + p.id + "']");
      if (el) {
        el.textContent = WIND_NAMES[windOf(p.id, n)];
        el.hidden = done || nightClosed;
      }
    });
    form.hidden = done || nightClosed;
    [save, verdict, points].forEach((el) => { el.hidden = done || nightClosed; });
    $("all-played").hidden = !done || nightClosed;
    showChoices();
  }

  function clearForm() {
    jokersAsked = false;
    // A check of the game just saved may still be on its way: its answer belongs to that game,
    // not to this empty form (it would show its verdict and points here and enable Save).
    generation++;
    clearTimeout(timer);
    points.textContent = "";
    say("Tap who won, or Wall game.");
    ready(false);
    tiles = [];
    exposed = [];
    hint = null;
    form.querySelectorAll("input[name=won]").forEach((r) => { r.checked = false; });
    form.querySelector("input[name=how][value=self_pick]").checked = true;
    form.querySelectorAll("#rare select").forEach((s) => { s.value = ""; });
    form.querySelectorAll("#rare input[type=checkbox]").forEach((c) => { c.checked = false; });
    form.querySelectorAll("#rare input[name=dead_reason]").forEach((c) => { c.value = ""; });
    $("rare").open = false;
    setTapMode("expose");
    entryMode("tiles");
    drawHand();
  }

  function fixJob(key) {
    const q = readQueue(table);
    const j = q.find((x) => x.key === key);
    if (!j) return;
    writeQueue(table, q.filter((x) => x.key !== key));
    clearForm();
    fixing = true;
    setNumber(j.game.number);
    const g = j.game;
    const won = g.outcome === "mahjong" ? String(g.winner) : g.outcome;
    const radio = form.querySelector("input[name=won][value='" + won + "']");
    if (radio) radio.checked = true;
    if (g.outcome === "mahjong") {
      const how = g.won_by === "discard" ? "discard:" + g.discarder : g.won_by;
      const h = form.querySelector("input[name=how][value='" + how + "']");
      if (h) h.checked = true;
      tiles = parseTiles(g.hand || "");
      exposed = (g.exposures || []).map((e) => parseTiles(e)).map((l) => ({ tile: l.find((t) => t !== "J"), size: l.length }));
    }
    renderQueue();
    showChoices();
    changed();
    status("Fixing game " + g.number + ": it was refused (" + j.reason + ").", "bad");
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (save.disabled) return;
    const g = game();
    const q = readQueue(table);
    q.push({ key: newKey(), table: table, game: g, label: label(g), state: "waiting" });
    writeQueue(table, q);
    status(label(g) + ": sending…", "");
    fixing = false;
    clearForm();
    setNumber(nextNumber());
    // The next game starts where a fresh screen does: at the top, with "Who won?" in view.
    window.scrollTo({ top: 0 });
    renderQueue();
    schedule();
    flush();
  });
  window.addEventListener("online", flush);
  // Looked at every 5 s, so a kept game goes at most about 20 s after the night is reopened.
  setInterval(() => { if (readQueue(table).some((j) => j.state === "closed")) flush(); }, 5000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) flush(); });

  setNumber(nextNumber());
  renderQueue();
  showChoices();
  drawHand();
  schedule();
  flush();
})();
