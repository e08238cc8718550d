// The game being entered: the table's players and winds, who won and how, the game as the API
// takes it, Save, and fixing a game the server refused.
import { readQueue, writeQueue, newKey, adoptOlder } from "./store.js";
import { parseTiles } from "./hand.js";

const WINDS = ["E", "S", "W", "N"];
const WIND_NAMES = { E: "East", S: "South", W: "West", N: "North" };

/** The screen's shared state, with the functions of this module. */
export function screen(form) {
  const $ = (id) => document.getElementById(id);
  const players = JSON.parse(form.dataset.players);
  const byId = {};
  players.forEach((p) => { byId[p.id] = p; });
  const table = form.dataset.table;
  adoptOlder(table);
  /** The next number as the server last said (the page as served, then after every send). */
  const serverNumber = Number(form.elements.number.value);
  const s = {
    $, form, table, players,
    card: form.dataset.card,
    ruleset: JSON.parse(form.dataset.ruleset),
    gamesPerTable: Number(form.dataset.games),
    /** The night is closed: no entry; games kept here wait for it to be reopened. */
    nightClosed: form.dataset.closed === "true",
    /** What the league calls a session: "night", or "round" in a tournament. */
    session: form.dataset.session || "night",
    serverNumber,
    number: serverNumber,
    savedUpTo: serverNumber - 1,
    /** A refused game is being fixed: its number stays until it is saved again. */
    fixing: false,
  };

  // ---------------------------------------------------------------- the table's players
  s.windOf = (playerId, n) => {
    const seat = players.findIndex((p) => p.id === Number(playerId));
    const east = (n - 1) % players.length;
    return WINDS[(seat + players.length - east) % players.length];
  };
  s.nameOf = (id) => byId[id] ? byId[id].name : "player " + id;
  s.value = (name) => {
    const el = form.querySelector("input[name=" + name + "]:checked");
    return el ? el.value : "";
  };
  s.winner = () => {
    const w = s.value("won");
    return /^\d+$/.test(w) ? Number(w) : null;
  };
  s.outcome = () => {
    const w = s.value("won");
    if (w === "wall" || w === "redeal") return w;
    return w ? "mahjong" : "";
  };

  // ---------------------------------------------------------------- who won, how
  s.showChoices = () => {
    const w = s.winner();
    const mahjong = s.outcome() === "mahjong" || s.outcome() === "";
    form.querySelectorAll(".mahjong-only").forEach((el) => { el.hidden = !mahjong; });
    const east = w !== null && s.windOf(w, s.number) === "E";
    form.querySelectorAll(".east-only").forEach((el) => { el.hidden = !east; });
    form.querySelectorAll("[data-discarder]").forEach((el) => { el.hidden = Number(el.dataset.discarder) === w; });
    // A choice that no longer applies (the discarder tapped as the winner, East's own ways for
    // someone else) is taken back: *How?* is asked again, never chosen for the scorer.
    const how = form.querySelector("input[name=how]:checked");
    if (how && how.closest("label").hidden) how.checked = false;
  };
  form.querySelectorAll("input[name=won], input[name=how]").forEach((r) => r.addEventListener("change", () => {
    s.showChoices();
    s.schedule();
    // The next choice comes up above the bar: How? after the winner, the hand after How?.
    if (!s.keepAbove) return;
    if (r.name === "won") s.keepAbove(form.querySelector("fieldset.how"));
    else s.keepAbove(form.querySelector(".hand-box"));
  }));
  form.querySelectorAll("#rare select, #rare input").forEach((r) => r.addEventListener("change", () => s.schedule()));
  // A keyboard's Enter never sends a half-entered game.
  form.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && e.target.tagName === "INPUT" && e.target.type !== "radio" && e.target.type !== "checkbox") {
      e.preventDefault();
    }
  });

  // ---------------------------------------------------------------- the game
  s.seats = () => players.map((p) => s.windOf(p.id, s.number));
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
  s.game = () => {
    const o = s.outcome();
    const g = { number: s.number, outcome: o, dead: deadCalls() };
    if (o === "mahjong") {
      g.winner = s.winner();
      g.hand = s.tiles.join(" ");
      g.exposures = s.exposureTiles();
      const how = s.value("how");
      if (!how) {
        // Not chosen yet: the check says so, and Save waits.
      } else if (how.startsWith("discard:")) {
        g.won_by = "discard";
        g.discarder = Number(how.slice(8));
      } else {
        g.won_by = how;
      }
    }
    return g;
  };
  /** The result as the preview takes it: players by wind. */
  s.result = (g) => {
    const r = { seats: s.seats(), outcome: g.outcome, dead: [] };
    if (g.outcome === "mahjong") {
      r.winner = s.windOf(g.winner, s.number);
      r.hand = g.hand;
      r.exposures = g.exposures;
      r.won_by = g.won_by;
      if (g.discarder) r.discarder = s.windOf(g.discarder, s.number);
    }
    return r;
  };

  s.clearForm = () => {
    s.jokersAsked = false;
    // A check of the game just saved may still be on its way: its answer belongs to that game,
    // not to this empty form (it would show its verdict and points here and enable Save).
    s.cancelCheck();
    s.points.textContent = "";
    s.say("Tap who won, or Wall game.");
    s.ready(false);
    s.tiles = [];
    s.exposed = [];
    s.hint = null;
    form.querySelectorAll("input[name=won]").forEach((r) => { r.checked = false; });
    form.querySelectorAll("input[name=how]").forEach((r) => { r.checked = false; });
    form.querySelectorAll("#rare select").forEach((el) => { el.value = ""; });
    form.querySelectorAll("#rare input[type=checkbox]").forEach((c) => { c.checked = false; });
    form.querySelectorAll("#rare input[name=dead_reason]").forEach((c) => { c.value = ""; });
    $("rare").open = false;
    s.setTapMode("expose");
    s.entryMode("tiles");
    s.drawHand();
  };

  /** A refused game back in the form, under its own number, to be fixed and saved again. */
  s.fixJob = (key) => {
    const q = readQueue(table);
    const j = q.find((x) => x.key === key);
    if (!j) return;
    writeQueue(table, q.filter((x) => x.key !== key));
    s.clearForm();
    s.fixing = true;
    s.setNumber(j.game.number);
    const g = j.game;
    const won = g.outcome === "mahjong" ? String(g.winner) : g.outcome;
    const radio = form.querySelector("input[name=won][value='" + won + "']");
    if (radio) radio.checked = true;
    if (g.outcome === "mahjong") {
      const how = g.won_by === "discard" ? "discard:" + g.discarder : g.won_by;
      const h = form.querySelector("input[name=how][value='" + how + "']");
      if (h) h.checked = true;
      s.tiles = parseTiles(g.hand || "");
      s.exposed = (g.exposures || []).map((e) => parseTiles(e)).map((l) => ({ tile: l.find((t) => t !== "J"), size: l.length }));
    }
    s.renderQueue();
    s.showChoices();
    s.changed();
    s.status("Fixing game " + g.number + ": it was refused (" + j.reason + ").", "bad");
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (s.save.disabled) return;
    const g = s.game();
    const q = readQueue(table);
    q.push({ key: newKey(), table: table, game: g, label: s.label(g), state: "waiting" });
    writeQueue(table, q);
    s.status(s.label(g) + ": sending…", "");
    s.fixing = false;
    s.clearForm();
    s.setNumber(s.nextNumber());
    // The next game starts where a fresh screen does: at the top, with "Who won?" in view.
    window.scrollTo({ top: 0 });
    s.renderQueue();
    s.schedule();
    s.flush();
  });

  /** The game being entered is number `n`: its number and winds on screen; after the table's
   *  last game (or on a closed night) no next game, no winds for it. */
  s.setNumber = (n) => {
    s.number = n;
    form.elements.number.value = String(n);
    document.querySelectorAll("#game-number, .save-number").forEach((el) => { el.textContent = String(n); });
    const done = n > s.gamesPerTable;
    const off = done || s.nightClosed;
    $("game-of").hidden = off;
    $("all-of").hidden = !done;
    players.forEach((p) => {
      const el = document.querySelector("[data-wind-of='" + p.id + "']");
      if (el) {
        el.textContent = WIND_NAMES[s.windOf(p.id, n)];
        el.hidden = off;
      }
    });
    form.hidden = off;
    [s.save, s.verdict, s.points].forEach((el) => { el.hidden = off; });
    $("all-played").hidden = !done || s.nightClosed;
    s.showChoices();
  };

  /** The screen as it opens: the next number, the games waiting here, and a first check. */
  s.start = () => {
    s.setNumber(s.nextNumber());
    s.renderQueue();
    s.sayWaiting();
    s.showChoices();
    s.drawHand();
    s.schedule();
    s.flush();
  };
  return s;
}
