// Scoring screen: tile picker, live check against the league's card, points preview, and
// sending the game through the API with the page's idempotency key. A submission that fails
// for lack of network is kept (in this page and in localStorage) and sent again, with the
// same key, when the network is back; the key makes a repeat harmless.
"use strict";

(function () {
  const form = document.getElementById("score");
  if (!form) return;
  const tableId = form.dataset.table;
  const card = form.dataset.card;
  const ruleset = JSON.parse(form.dataset.ruleset);
  const key = form.elements.key.value;
  const pendingKey = "mahjong-league:pending:" + tableId;
  const verdict = document.getElementById("verdict");
  const preview = document.getElementById("preview");
  const sent = document.getElementById("sent");
  const picker = document.getElementById("picker");
  const inputs = Array.from(form.querySelectorAll(".tiles-input"));
  const winds = {};
  form.querySelectorAll("input.wind").forEach((w) => { winds[w.dataset.player] = w.value; });
  const seats = Object.values(winds);

  picker.hidden = false;

  function value(name) {
    const el = form.querySelector("[name=" + name + "]:checked");
    return el ? el.value : "";
  }
  function target() {
    const t = document.querySelector("input[name=target]:checked");
    return document.getElementById(t ? t.value : "hand");
  }
  function tilesOf(input) {
    return input.value.trim().split(/\s+/).filter((t) => t.length > 0);
  }
  function drawPicked(input) {
    const box = document.getElementById(input.id + "-picked");
    if (!box) return;
    box.textContent = "";
    tilesOf(input).forEach((t, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "tile small";
      b.textContent = t.toUpperCase();
      b.setAttribute("aria-label", "Remove " + t.toUpperCase());
      b.addEventListener("click", () => {
        const list = tilesOf(input);
        list.splice(i, 1);
        input.value = list.join(" ");
        changed(input);
      });
      box.appendChild(b);
    });
  }
  function changed(input) {
    drawPicked(input);
    scheduleCheck();
  }

  picker.addEventListener("click", (e) => {
    const b = e.target.closest("button");
    if (!b) return;
    const input = target();
    const list = tilesOf(input);
    if (b.id === "undo") list.pop();
    else if (b.id === "clear") list.length = 0;
    else if (b.dataset.tile) list.push(b.dataset.tile);
    input.value = list.join(" ");
    changed(input);
  });
  inputs.forEach((i) => i.addEventListener("input", () => changed(i)));

  function outcomeShown() {
    const mahjong = value("outcome") === "mahjong";
    form.querySelectorAll(".mahjong-only").forEach((f) => { f.hidden = !mahjong; });
    scheduleCheck();
  }
  form.querySelectorAll("input[name=outcome]").forEach((r) => r.addEventListener("change", outcomeShown));
  form.querySelectorAll("input[name=winner], input[name=won_by], select").forEach((r) =>
    r.addEventListener("change", scheduleCheck));

  let timer = null;
  let generation = 0;
  function scheduleCheck() {
    clearTimeout(timer);
    timer = setTimeout(check, 250);
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

  function exposures() {
    return inputs.filter((i) => i.id !== "hand").map((i) => i.value.trim()).filter((v) => v);
  }

  function line(text, cls) {
    const p = document.createElement("p");
    p.textContent = text;
    if (cls) p.className = cls;
    return p;
  }

  async function check() {
    const mine = ++generation;
    verdict.textContent = "";
    preview.textContent = "";
    if (value("outcome") !== "mahjong") return showPreview(mine);
    const hand = document.getElementById("hand").value.trim();
    const count = tilesOf(document.getElementById("hand")).length;
    if (count === 0) return;
    if (count !== 14) {
      verdict.appendChild(line(count + " of 14 tiles", "muted"));
      return;
    }
    let r;
    try {
      r = await post("/api/v1/hands/check", { card: card, hand: hand, exposures: exposures() });
    } catch (_) {
      verdict.appendChild(line("Cannot check the hand: no network. It will be checked again when you change it.", "bad"));
      return;
    }
    if (mine !== generation) return;
    if (r.status !== 200) {
      verdict.appendChild(line((r.data && r.data.detail) || "The hand cannot be read.", "bad"));
      return;
    }
    const a = r.data;
    if (a.winning && a.best) {
      verdict.appendChild(line("Mah Jongg: " + a.best.id + " (" + a.best.section + "), value " + a.best.value +
        (a.best.jokerless ? ", jokerless" : ""), "ok"));
      showPreview(mine);
    } else {
      verdict.appendChild(line("This hand matches no line of the card. Nearest:", "bad"));
      const ul = document.createElement("ul");
      (a.nearest || []).forEach((n) => {
        const li = document.createElement("li");
        li.textContent = n.id + " (" + n.value + "): " +
          (n.needs.length ? "needs " + n.needs.join(" ") : "") + (n.reason ? " " + n.reason : "");
        ul.appendChild(li);
      });
      verdict.appendChild(ul);
    }
  }

  function result() {
    const outcome = value("outcome");
    const r = { seats: seats, outcome: outcome, dead: [] };
    if (outcome === "mahjong") {
      r.winner = winds[value("winner")];
      r.hand = document.getElementById("hand").value.trim();
      r.exposures = exposures();
      r.won_by = value("won_by");
      const d = form.elements.discarder.value;
      if (r.won_by === "discard" && d) r.discarder = winds[d];
    }
    return r;
  }

  async function showPreview(mine) {
    const r = result();
    if (r.outcome === "mahjong" && !r.winner) {
      preview.appendChild(line("Choose the winner to see the points.", "muted"));
      return;
    }
    let p;
    try {
      p = await post("/api/v1/scores/preview", { card: card, ruleset: ruleset, result: r });
    } catch (_) { return; }
    if (mine !== generation) return;
    if (p.status !== 200) {
      preview.appendChild(line((p.data && p.data.detail) || "No preview.", "bad"));
      return;
    }
    const names = {};
    form.querySelectorAll("input[name=winner]").forEach((w) => {
      names[winds[w.value]] = w.parentElement.textContent.trim();
    });
    const ul = document.createElement("ul");
    ul.className = "points";
    (p.data.breakdown || []).forEach((b) => {
      const li = document.createElement("li");
      li.textContent = (names[b.seat] || b.seat) + ": " + (b.score > 0 ? "+" : "") + b.score + " (" + b.text + ")";
      ul.appendChild(li);
    });
    preview.appendChild(line("Points if saved:", ""));
    preview.appendChild(ul);
  }

  // The game as the API takes it: players by id.
  function game() {
    const outcome = value("outcome");
    // Always the number this screen shows: two scorers entering the same game get 201 and 409,
    // never games k and k+1.
    const g = { number: Number(form.elements.number.value), outcome: outcome, dead: [] };
    if (outcome === "mahjong") {
      g.winner = Number(value("winner")) || null;
      g.hand = document.getElementById("hand").value.trim();
      g.exposures = exposures();
      g.won_by = value("won_by");
      const d = form.elements.discarder.value;
      if (g.won_by === "discard" && d) g.discarder = Number(d);
    }
    const deadPlayers = form.querySelectorAll("select[name=dead_player]");
    deadPlayers.forEach((sel, i) => {
      if (!sel.value) return;
      const caller = form.querySelectorAll("select[name=dead_called_by]")[i].value;
      const reason = form.querySelectorAll("input[name=dead_reason]")[i].value.trim();
      const contested = form.querySelector("input[name=dead_contested][value='" + i + "']").checked;
      const upheld = form.querySelector("input[name=dead_upheld][value='" + i + "']").checked;
      const call = { player: Number(sel.value), contested: contested };
      if (caller) call.called_by = Number(caller);
      if (reason) call.reason = reason;
      if (contested) call.upheld = upheld;
      g.dead.push(call);
    });
    return g;
  }

  let retry = null;
  async function send(job) {
    sent.className = "sent";
    sent.textContent = "Saving…";
    let r;
    try {
      r = await post("/api/v1/tables/" + job.table + "/games", job.game, { "Idempotency-Key": job.key });
    } catch (_) {
      r = null;
    }
    // No answer, or the server's trouble (5xx, 503 while the database is away): the game stays
    // on this device and goes again with the same key, so it is stored once.
    if (r === null || r.status >= 500) {
      localStorage.setItem(pendingKey, JSON.stringify(job));
      sent.className = "sent waiting";
      sent.textContent = r === null
        ? "Not saved yet: no network. This game is kept on this device and will be sent again automatically."
        : "Not saved yet: the server is busy (" + r.status + "). This game is kept on this device and will be sent again automatically.";
      clearTimeout(retry);
      retry = setTimeout(() => send(job), 5000);
      return;
    }
    if (r.status === 201) {
      localStorage.removeItem(pendingKey);
      sent.className = "sent saved";
      sent.textContent = "Saved: game " + r.data.number + ". Opening the night…";
      setTimeout(() => { window.location.href = "/nights/" + form.dataset.night + "#table-" + job.table; }, 800);
      return;
    }
    // A refusal (4xx): the reason is shown and the game stays in the form to be fixed.
    localStorage.removeItem(pendingKey);
    sent.className = "sent bad";
    const detail = (r.data && r.data.detail) || ("The server answered " + r.status + ".");
    sent.textContent = "Not saved: " + detail + " The game is still here: fix it and save again.";
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    send({ table: tableId, key: key, game: game() });
  });
  window.addEventListener("online", () => {
    const stored = localStorage.getItem(pendingKey);
    if (stored) send(JSON.parse(stored));
  });

  // A game kept from an earlier visit without network: send it now.
  const stored = localStorage.getItem(pendingKey);
  if (stored) send(JSON.parse(stored));

  inputs.forEach(drawPicked);
  outcomeShown();
})();
