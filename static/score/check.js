// Every change to the game is checked against the league's card by the engine
// (POST /api/v1/hands/check) and priced (POST /api/v1/scores/preview); Save stays disabled until
// the result stands, and the reason is said in the scorer's words. Without network the game may
// still be saved: the server checks it when it is sent.
import { plural } from "./store.js";
import { groupSizes } from "./hand.js";
import { signed } from "./bar.js";

export async function post(url, body, headers) {
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

export function checking(s) {
  let timer = null;
  /** Each check's number: an answer to an older one is dropped. */
  let generation = 0;

  s.schedule = () => {
    clearTimeout(timer);
    s.save.disabled = true;
    timer = setTimeout(evaluate, 120);
  };
  /** Any check on its way is forgotten (the form was cleared). */
  s.cancelCheck = () => {
    generation++;
    clearTimeout(timer);
  };

  async function evaluate() {
    const mine = ++generation;
    s.points.textContent = "";
    const o = s.outcome();
    if (!o) { s.say("Tap who won, or Wall game."); return s.ready(false); }
    const g = s.game();
    const tiles = s.tiles;
    if (o === "mahjong") {
      const who = s.nameOf(g.winner);
      if (tiles.length === 0) { s.say("Enter " + who + "'s 14 tiles, or pick the line from the card."); return s.ready(false); }
      if (tiles.length !== 14) {
        s.say(who + "'s hand has " + tiles.length + " of 14 tiles" + (tiles.length > 14 ? ": remove " + (tiles.length - 14) + "." : "."), "bad");
        return s.ready(false);
      }
      if (s.jokersAsked) {
        s.say("Jokers in " + who + "'s hand? Tap a group for each joker in it, or tap No jokers.", "waiting");
        return s.ready(false);
      }
      let r;
      try {
        r = await post("/api/v1/hands/check", { card: s.card, hand: g.hand, exposures: g.exposures });
      } catch (_) { r = null; }
      if (mine !== generation) return;
      // How she won decides who pays: never assumed, and asked for after the hand.
      const askHow = "Say how " + who + " won: self-pick, or whose discard.";
      if (r === null || r.status >= 500) {
        if (!g.won_by) {
          s.say("Not checked: no network. " + askHow, "waiting");
          return s.ready(false);
        }
        s.say("Not checked: no network. Save keeps the game on this device; the server checks it when it is sent.", "waiting");
        return s.ready(true);
      }
      if (r.status !== 200) {
        // The detail names its field ("hand: …"): said once, after whose hand it is.
        const detail = ((r.data && r.data.detail) || "it cannot be read.").replace(/^hand: /, "");
        s.say(who + "'s hand: " + detail, "bad");
        return s.ready(false);
      }
      if (!r.data.winning || !r.data.best) {
        const n = (r.data.nearest || [])[0];
        let text = who + "'s hand matches no line";
        if (n) text += "; nearest: " + n.id + (n.needs.length ? ", needs " + n.needs.join(" ") : "") + (n.reason ? " (" + n.reason + ")" : "");
        s.say(text + ".", "bad");
        return s.ready(false);
      }
      const b = r.data.best;
      const before = JSON.stringify(s.layout());
      s.hint = { target: b.target, groups: groupSizes(b.pattern), jokers: b.jokers };
      if (JSON.stringify(s.layout()) !== before) s.drawHand();
      const line = who + ": " + b.id + " · " + b.value + (b.jokerless ? " · jokerless" : "") + (b.concealed ? " · concealed" : "") +
        (g.exposures.length ? " · " + plural(g.exposures.length, "exposure", "exposures") : "");
      if (!g.won_by) {
        s.say(line + ". " + askHow, "waiting");
        return s.ready(false);
      }
      s.say(line, "ok");
    } else {
      s.say(o === "wall" ? "Wall game: nobody went out." : "Redeal: no game; game " + s.number + " is played again.", "ok");
    }
    let p;
    try {
      p = await post("/api/v1/scores/preview", { card: s.card, ruleset: s.ruleset, result: s.result(g) });
    } catch (_) { p = null; }
    if (mine !== generation) return;
    if (p === null || p.status >= 500) return s.ready(true);
    if (p.status !== 200) {
      s.say((p.data && p.data.detail) || "This result cannot be scored.", "bad");
      return s.ready(false);
    }
    const names = {};
    s.players.forEach((pl) => { names[s.windOf(pl.id, s.number)] = pl.name; });
    (p.data.breakdown || []).forEach((sc) => {
      const li = document.createElement("li");
      li.textContent = (names[sc.seat] || sc.seat) + " " + signed(sc.score);
      li.title = sc.text;
      s.points.appendChild(li);
    });
    if (g.dead.length) {
      const li = document.createElement("li");
      li.textContent = "dead-hand calls are settled when saved";
      s.points.appendChild(li);
    }
    s.ready(true);
  }
}
