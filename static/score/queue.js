// Saved games are sent in order from the device's queue, each with its own idempotency key. A
// game the network or the server could not take stays queued and goes again by itself with the
// same key (stored once); a refused game waits to be fixed; a game whose number another device
// took shows both games and two ways out; a game sent to a closed night stays here and goes by
// itself once the night is reopened. After every send the screen takes the table as the server
// has it.
import { readQueue, writeQueue, newKey, plural } from "./store.js";
import { post } from "./check.js";
import { signed } from "./bar.js";

/** Games refused because the night is closed are tried again this often, so they are sent by
 *  themselves once an organizer reopens it. */
const CLOSED_RETRY = 15000;

export function sending(s) {
  const $ = s.$;
  const table = s.table;

  /** A game in a scorer's words: "Bea went out on Cy's discard", "Ann went out, self-pick". */
  function inWords(g) {
    if (g.outcome === "wall") return "wall game";
    if (g.outcome === "redeal") return "redeal";
    const how = g.won_by === "discard" ? " on " + s.nameOf(g.discarder) + "'s discard" :
      g.won_by === "self_pick" ? ", self-pick" : g.won_by === "joker_exchange" ? ", joker exchange" :
      g.won_by === "heavenly" ? ", heavenly hand" : g.won_by === "earthly" ? ", earthly hand" : "";
    return s.nameOf(g.winner) + " went out" + how;
  }
  s.label = (g) => "Game " + g.number + ": " + inWords(g);

  /** The status line while games need the scorer (refused, or their number taken): it says so
   *  until they are dealt with. */
  function stillNeeded(prefix) {
    const open = readQueue(table).filter((j) => j.state === "refused" || j.state === "clash");
    if (!open.length) return false;
    const which = open.map((j) => "game " + j.game.number).join(", ");
    s.status((prefix ? prefix + " " : "") + "Not saved yet: " + which + " — see below and choose.", "bad");
    return true;
  }

  /** The next free number: past the server's games, the saved ones and those queued here
   *  (but `except`, the game being given a number). */
  s.nextNumber = (except) => {
    let n = Math.max(s.serverNumber, s.savedUpTo + 1);
    readQueue(table).forEach((j) => {
      if (j.key === except || j.state === "clash") return;
      if (j.game.outcome !== "redeal" && Number.isFinite(j.game.number)) n = Math.max(n, j.game.number + 1);
    });
    return n;
  };

  /** A game whose number was taken is kept as the next free number, with a new key (it is a new
   *  request), and sent. */
  function keepAsNext(key) {
    const q = readQueue(table);
    const j = q.find((x) => x.key === key);
    if (!j) return;
    const was = j.game.number;
    j.game.number = s.nextNumber(key);
    j.key = newKey();
    j.state = "waiting";
    j.label = s.label(j.game);
    delete j.theirs;
    delete j.reason;
    writeQueue(table, q);
    s.status("Yours (game " + was + " on this device) goes as game " + j.game.number + ": sending…", "");
    if (!s.fixing) s.setNumber(s.nextNumber());
    s.renderQueue();
    s.flush();
  }

  /** Takes the table as the server has it now — its games, each player's points and the next
   *  number — from this screen as the server renders it, so another device's games show here
   *  too. What changed on another device is said on the status line. Offline (or a closed
   *  night's page), nothing changes. */
  async function syncFromServer() {
    let html;
    try {
      const res = await fetch(location.pathname, { credentials: "same-origin", cache: "no-store" });
      if (!res.ok) return;
      html = await res.text();
    } catch (_) { return; }
    const doc = new DOMParser().parseFromString(html, "text/html");
    const theirs = doc.getElementById("score");
    if (!theirs) return;
    // The night was closed or reopened meanwhile: the screen as it is now (the queue is kept).
    if ((theirs.dataset.closed === "true") !== s.nightClosed) { location.reload(); return; }
    const n = Number(theirs.querySelector("input[name=number]").value);
    const was = s.number;
    if (Number.isFinite(n) && n > 0) s.serverNumber = n;
    doc.querySelectorAll("[data-total-of]").forEach((cell) => {
      const mine = document.querySelector("[data-total-of='" + cell.dataset.totalOf + "']");
      if (mine) mine.textContent = cell.textContent;
    });
    const played = doc.getElementById("played");
    let news = [];
    if (played) {
      const before = new Set(Array.from($("played").children, (li) => li.textContent.trim()));
      const numberOf = (t) => Number((/^Game (\d+)/.exec(t) || [])[1]);
      news = Array.from(played.children, (li) => li.textContent.trim())
        .filter((t) => !before.has(t) && !mine.has(numberOf(t)));
      $("played").innerHTML = played.innerHTML;
      $("played-count").textContent = String($("played").children.length);
      document.querySelector("details.played").hidden = $("played").children.length === 0;
    }
    mine.clear();
    if (!s.fixing) s.setNumber(s.nextNumber());
    s.renderQueue();
    if (!news.length || stillNeeded()) return;
    // Another device saved, amended or voided a game of this table: said in words (the game
    // without its points, which are in the totals), and what is being entered here now has the
    // next number.
    const heads = news.map((t) => t.split(": ").slice(0, 2).join(": ") +
      (/\(voided\)$/.test(t) ? " — voided on another device" : " — entered on another device"));
    let text = heads.join(". ") + ".";
    let short = heads.length === 1 ? "Game " + (/^Game (\d+)/.exec(heads[0]) || ["", "?"])[1] + " came from another device." : "Games came from another device.";
    if (!s.fixing && s.number > was && s.outcome() !== "") {
      if (s.number > s.gamesPerTable) {
        text += " The table has all its games: yours is not saved.";
      } else {
        text += " Yours is now game " + s.number + ": if it is the same game, leave it.";
        short = "Yours is now game " + s.number + ".";
      }
    }
    s.status(text, "saved", short);
  }
  /** The numbers of the games this screen stored since the table was last read: not news. */
  const mine = new Set();
  s.following = syncFromServer;

  /** The table's events pushed to this screen (another device's games, an organizer's fix or
   *  void, the night closed or reopened): the screen takes the table as stored within a moment.
   *  A stream the server ended for good (a code no longer valid) is tried again later. */
  function follow() {
    if (!window.EventSource) return;
    let pending = null;
    const soon = () => {
      clearTimeout(pending);
      pending = setTimeout(syncFromServer, 150);
    };
    const es = new EventSource("/api/v1/tables/" + table + "/events");
    let opened = false;
    es.addEventListener("open", () => {
      // A reconnection: what happened while it was away.
      if (opened) soon();
      opened = true;
    });
    ["game.recorded", "game.amended", "game.voided", "night.closed", "night.reopened"]
      .forEach((type) => es.addEventListener(type, soon));
    es.addEventListener("error", () => {
      if (es.readyState === EventSource.CLOSED) setTimeout(follow, 15000);
    });
  }
  follow();

  function dropButton(j, after) {
    const drop = document.createElement("button");
    drop.type = "button";
    drop.className = "small-button secondary";
    drop.textContent = "Delete game " + j.game.number;
    drop.addEventListener("click", () => {
      if (drop.dataset.sure) {
        writeQueue(table, readQueue(table).filter((x) => x.key !== j.key));
        s.renderQueue();
        if (after) after();
      } else {
        drop.dataset.sure = "1";
        drop.textContent = "Tap again to delete game " + j.game.number;
      }
    });
    return drop;
  }

  /** Says which games wait on this device and that they are not saved yet (the screen as it
   *  opens, a reopened night's included); a refusal says more and is left as it is. */
  s.sayWaiting = () => {
    const q = readQueue(table);
    if (!q.length || stillNeeded()) return;
    const which = q.map((j) => "game " + j.game.number).join(", ");
    s.status("Not saved yet: " + which + (q.length === 1 ? " waits" : " wait") + " on this device" +
      (s.nightClosed ? " and " + (q.length === 1 ? "goes" : "go") + " by itself once the " + s.session + " is reopened." : ": sending…"), "waiting");
  };

  s.renderQueue = () => {
    const q = readQueue(table);
    $("queue").hidden = q.length === 0;
    $("queue-title").textContent = plural(q.length, "game", "games") + " waiting on this device";
    const list = $("queue-list");
    // Drawn again only when what it says changed: a list redrawn by an event from another
    // device (or a resend) must not take a button from under a finger about to tap it.
    const drawn = JSON.stringify([s.session, s.gamesPerTable, q.map((j) => [j, s.nextNumber(j.key)])]);
    if (list.dataset.drawn === drawn) return;
    list.dataset.drawn = drawn;
    list.textContent = "";
    q.forEach((j) => {
      const li = document.createElement("li");
      li.className = j.state;
      const text = document.createElement("span");
      text.textContent = j.label + (j.state === "refused" ? " — refused: " + j.reason :
        j.state === "closed" ? " — kept: " + s.session + " " + j.night + " is closed; it is sent by itself once an organizer reopens it" :
        " — not sent yet");
      li.appendChild(text);
      if (j.state === "clash") {
        // The number was taken on another device: both games in words, and the two ways out.
        text.textContent = "Game " + j.game.number + " was entered on another device: " + j.theirs +
          ". Yours: " + inWords(j.game) + ".";
        const full = s.nextNumber(j.key) > s.gamesPerTable;
        let keep = null;
        if (full) {
          text.textContent += " The table has all " + s.gamesPerTable + " games, so yours cannot be another: " +
            "if it is the same game, drop it; if not, show this screen to an organizer, who can fix the table's games.";
        } else {
          keep = document.createElement("button");
          keep.type = "button";
          keep.className = "small-button";
          keep.textContent = "Keep mine as the next game";
          keep.addEventListener("click", () => keepAsNext(j.key));
        }
        const same = document.createElement("button");
        same.type = "button";
        same.className = "small-button secondary";
        same.textContent = "Same game: drop mine";
        same.addEventListener("click", () => {
          writeQueue(table, readQueue(table).filter((x) => x.key !== j.key));
          s.renderQueue();
          if (!s.fixing) s.setNumber(s.nextNumber());
          if (!stillNeeded()) s.status("Dropped yours: game " + j.game.number + " is the one entered on the other device.", "saved");
        });
        if (keep) li.append(" ", keep);
        li.append(" ", same);
      }
      if (j.state === "closed") li.append(" ", dropButton(j));
      if (j.state === "refused") {
        const fix = document.createElement("button");
        fix.type = "button";
        fix.className = "small-button";
        fix.textContent = "Fix game " + j.game.number;
        fix.addEventListener("click", () => s.fixJob(j.key));
        li.append(" ", fix, " ", dropButton(j, () => s.setNumber(s.nextNumber())));
      }
      list.appendChild(li);
    });
  };

  /** A stored game joins the table's played games, and its scores the players' totals. */
  function addPlayed(view) {
    // A game's players; an answer stored for a retry before games had one shape says `scores`.
    const players = view.players || view.scores || [];
    const summary = (view.outcome === "mahjong" ? "Mah Jongg" + (view.line ? ", " + view.line : "") :
      view.outcome === "wall" ? "Wall game" : "Redeal") + ": " +
      players.map((sc) => sc.player.name + " " + signed(sc.score)).join(", ");
    const li = document.createElement("li");
    li.textContent = "Game " + view.number + ": " + summary;
    $("played").appendChild(li);
    $("played-count").textContent = String($("played").children.length);
    document.querySelector("details.played").hidden = false;
    players.forEach((sc) => {
      const cell = document.querySelector("[data-total-of='" + sc.player.id + "']");
      if (cell) cell.textContent = String(Number(cell.textContent) + sc.score);
    });
    return summary;
  }

  let retryIn = 2000;
  let retryTimer = null;
  let flushing = false;
  let closedTriedAt = 0;
  s.flush = async () => {
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
          const why = r === null ? "no network" : r.status === 401 ? "this device is logged out (log in again; nothing is lost)" : "the server is busy (" + r.status + ")";
          s.status("Not saved yet: " + why + ". " + plural(readQueue(table).filter((j) => j.state === "waiting").length, "game waits", "games wait") + " on this device and will be sent automatically.", "waiting");
          retryTimer = setTimeout(s.flush, retryIn);
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
          if (r.data.outcome !== "redeal") s.savedUpTo = Math.max(s.savedUpTo, r.data.number);
          const summary = addPlayed(r.data);
          mine.add(r.data.number);
          // A refusal still waiting keeps the status line: it is not overwritten by a success.
          if (!stillNeeded("Saved game " + r.data.number + ".")) {
            s.status("Saved game " + r.data.number + ": " + summary, "saved", "✓ Saved game " + r.data.number + ".");
          }
        } else if (r.status === 409 && r.data && r.data.night_closed) {
          // The night (round) is closed: the game stays here, not retried at once, and goes by
          // itself when the night is reopened.
          const n = r.data.night_closed.number;
          if (at >= 0) { q[at].state = "closed"; q[at].night = n; }
          writeQueue(table, q);
          s.status("Not saved: " + s.session + " " + n + " is closed. Game " + job.game.number + " stays on this device and is sent by itself once an organizer reopens the " + s.session + ".", "bad");
        } else if (r.status === 409 && r.data && r.data.taken) {
          // The number was taken on another device: the scorer says whether it is the same game.
          if (at >= 0) { q[at].state = "clash"; q[at].theirs = r.data.taken.summary; q[at].reason = "number taken"; }
          writeQueue(table, q);
          s.status("Not saved: game " + job.game.number + " was entered on another device. " +
            (s.nextNumber(job.key) > s.gamesPerTable
              ? "The table has all its games: below, drop yours if it is the same game, or show it to an organizer."
              : "Below: keep yours as the next game, or drop it if it is the same game."), "bad");
        } else {
          const detail = (r.data && r.data.detail) || ("the server answered " + r.status);
          if (at >= 0) { q[at].state = "refused"; q[at].reason = detail; }
          writeQueue(table, q);
          s.status("Not saved: game " + job.game.number + ": " + detail + " It waits below: tap Fix.", "bad");
        }
        s.renderQueue();
      }
    } finally {
      flushing = false;
      s.renderQueue();
      if (!s.fixing) s.setNumber(Math.max(s.number, s.nextNumber()));
      // After every send the screen takes the table as the server has it (this also refreshes
      // the copy of the page the service worker keeps).
      if (sentAny) syncFromServer();
    }
  };
  window.addEventListener("online", s.flush);
  // Looked at every 5 s, so a kept game goes at most about 20 s after the night is reopened.
  setInterval(() => { if (readQueue(table).some((j) => j.state === "closed")) s.flush(); }, 5000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) s.flush(); });
}
