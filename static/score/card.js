// A hand picked from the league's card: a line found by its section, number, value or pattern,
// then which tiles of it (a line with one choice fills the hand at once). The hand comes with
// natural tiles only, so the screen then asks where the jokers are.
import { face, SUITS } from "./hand.js";

/** A target's groups in short words: "222 Bam · 0000 · 2222 Crak". */
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

/** A pattern drawn as the printed card draws it: each group in its suit's ink and underline
 *  (groups with one colour letter share a suit; no letter on a suited group is one suit). */
function drawPattern(pattern) {
  const out = document.createElement("span");
  out.className = "sk-line";
  const colours = [];
  pattern.split(/\s+/).filter(Boolean).forEach((token) => {
    const [text, letter] = token.split(":");
    const suited = /[1-9D]/.test(text);
    const colour = suited ? (letter || "") : null;
    if (suited && !colours.includes(colour)) colours.push(colour);
    const g = document.createElement("span");
    g.className = "sk-group " + (suited ? "c" + (colours.indexOf(colour) % 3) : "plain");
    g.textContent = text;
    out.appendChild(g);
  });
  return out;
}

export function fromCard(s) {
  const $ = s.$;
  let cardLines = null;
  const cardUrl = "/api/v1/cards/" + encodeURIComponent(s.card);

  s.entryMode = (mode) => {
    $("by-tiles").setAttribute("aria-pressed", String(mode === "tiles"));
    $("by-card").setAttribute("aria-pressed", String(mode === "card"));
    $("tiles-entry").hidden = mode !== "tiles";
    $("card-entry").hidden = mode !== "card";
    if (mode === "card") loadCard();
  };
  $("by-tiles").addEventListener("click", () => s.entryMode("tiles"));
  $("by-card").addEventListener("click", () => s.entryMode("card"));
  document.querySelector(".entry-modes").hidden = false;

  async function loadCard() {
    if (cardLines) return;
    const list = $("card-lines");
    list.textContent = "Loading the card…";
    try {
      const res = await fetch(cardUrl, { credentials: "same-origin" });
      if (!res.ok) throw new Error(String(res.status));
      const c = await res.json();
      cardLines = [];
      const nav = $("card-sections");
      nav.textContent = "";
      (c.sections || []).forEach((sec) => {
        // A line is named as the printed card names it: its section and its place there.
        sec.lines.forEach((l, i) => cardLines.push(Object.assign({ section: sec.name, name: sec.name + " · line " + (i + 1) }, l)));
        const b = document.createElement("button");
        b.type = "button";
        b.className = "small-button secondary";
        b.textContent = sec.name;
        b.addEventListener("click", () => { $("line-search").value = sec.name; showLines(); });
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
      l.id.toLowerCase().includes(q) || l.name.toLowerCase().includes(q) || l.patterns.some((p) => p.toLowerCase().replace(/\s+/g, "").includes(compact)));
    shown.forEach((l) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "line";
      b.dataset.line = l.id;
      const head = document.createElement("span");
      head.className = "line-head";
      head.textContent = l.name + " · " + l.value + (l.concealed ? " · C" : " · X");
      b.appendChild(head);
      l.patterns.forEach((p, i) => {
        if (i > 0) { const or = document.createElement("span"); or.className = "or"; or.textContent = " or "; b.appendChild(or); }
        const drawn = drawPattern(p);
        drawn.setAttribute("aria-hidden", "true");
        b.appendChild(drawn);
      });
      // What a screen reader says, and what a player reads when the inks look alike.
      const said = document.createElement("span");
      said.className = "line-said";
      said.textContent = l.words + (l.options && l.options.length ? ". " + l.options.join(" ") : "");
      b.appendChild(said);
      b.addEventListener("click", () => pickLine(l));
      li.appendChild(b);
      list.appendChild(li);
    });
    if (!shown.length) list.textContent = "No line matches “" + q + "”.";
  }
  // The lines found come up above the score bar, to be tapped next.
  $("line-search").addEventListener("input", () => {
    if (!cardLines) return;
    showLines();
    if (s.keepAbove) s.keepAbove($("card-lines"));
  });

  async function pickLine(l) {
    const box = $("target-list");
    $("line-targets").hidden = false;
    $("line-picked").textContent = l.name + ": which tiles?";
    box.textContent = "";
    let data;
    try {
      const res = await fetch(cardUrl + "/lines/" + encodeURIComponent(l.id), { credentials: "same-origin" });
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
        s.tiles = t.tiles.slice();
        s.exposed = [];
        s.hint = { target: t.tiles.slice(), groups: t.groups.slice(), jokers: [] };
        s.jokersAsked = true;
        s.setTapMode("joker");
        s.entryMode("tiles");
        s.changed();
        s.handView.scrollIntoView({ block: "nearest" });
      });
      li.appendChild(b);
      box.appendChild(li);
    });
    if (data.targets.length === 1) box.querySelector("button").click();
    else if (s.keepAbove) s.keepAbove($("line-targets"));
  }
}
