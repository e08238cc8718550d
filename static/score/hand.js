// The winner's 14 tiles: the tile picker (taps and arrow keys), typed tiles, the hand drawn as
// groups, exposures and jokers marked by tapping a group.

const FACES = { RD: ["R", "Red"], GD: ["G", "Green"], WD: ["0", "Soap"], F: ["F", "Flower"], J: ["J", "Joker"],
  N: ["N", "North"], E: ["E", "East"], W: ["W", "West"], S: ["S", "South"] };
export const SUITS = { B: "Bam", C: "Crak", D: "Dot" };

/** A tile's face and word: ["5", "Bam"], ["R", "Red"]. */
export function face(t) {
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
/** The sizes of a card pattern's groups ("222 0000 2222 2222" → [3, 4, 4, 4]). */
export function groupSizes(pattern) {
  return pattern.split(/\s+/).filter((t) => t && !["+", "=", "x", "X", "*"].includes(t))
    .map((t) => Array.from(t.split(":")[0]).length);
}
export function parseTiles(text) {
  return text.trim().split(/[\s,]+/).filter((t) => t).map((t) => t.toUpperCase());
}

export function hand(s) {
  const $ = s.$;
  const handView = $("hand-view");
  const handInput = $("hand");
  const exposureInputs = Array.from(s.form.querySelectorAll(".exposure-input"));
  const picker = $("picker");
  s.handView = handView;
  s.tiles = [];
  /** Exposed groups as {tile, size}; their tiles come from the hand's layout. */
  s.exposed = [];
  /** A hand filled from the card has only natural tiles: until the scorer says where its jokers
   *  are (a tap on a group) or that there are none, it is not saved — else a hand with jokers
   *  would be scored jokerless by mistake. */
  s.jokersAsked = false;
  /** How the last accepted hand fell into groups: {target, groups, jokers}. */
  s.hint = null;
  let tapMode = "expose";

  /** The hand as groups: from the engine's match when it still holds, else runs as entered. */
  s.layout = () => {
    const hint = s.hint;
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
      if (sameTiles(all, s.tiles)) return groups;
    }
    const groups = [];
    s.tiles.forEach((t) => {
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
  };

  /** Each exposure paired with a group of the layout (tile and size), or dropped. */
  function markExposed(groups) {
    const kept = [];
    s.exposed.forEach((e) => {
      const g = groups.find((x) => !x.exposed && x.tile === e.tile && x.size === e.size);
      if (g) { g.exposed = true; kept.push(e); }
    });
    s.exposed = kept;
    return groups;
  }
  s.exposureTiles = () => markExposed(s.layout()).filter((g) => g.exposed).map((g) => g.tiles.join(" "));

  s.drawHand = () => {
    const groups = markExposed(s.layout());
    handView.textContent = "";
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = s.tiles.length + "/14";
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
    handInput.value = s.tiles.join(" ");
    const ex = s.exposureTiles();
    exposureInputs.forEach((input, i) => { input.value = ex[i] || ""; });
    document.querySelector(".hand-tools").hidden = s.tiles.length === 0;
  };

  function tapGroup(g) {
    if (tapMode === "expose") {
      const i = s.exposed.findIndex((e) => e.tile === g.tile && e.size === g.size);
      if (g.exposed && i >= 0) s.exposed.splice(i, 1);
      else s.exposed.push({ tile: g.tile, size: g.size });
    } else {
      // Jokers: one more joker in the group each tap; a group of jokers only goes back to naturals.
      const naturals = g.tiles.filter((t) => t !== "J").length;
      if (!s.hint) {
        const now = s.layout();
        s.hint = { target: [].concat(...now.map((x) => x.tile ? Array(x.size).fill(x.tile) : x.tiles)), groups: now.map((x) => x.size), jokers: [].concat(...now.map((x) => x.tile ? x.tiles.filter((t) => t === "J").map(() => x.tile) : [])) };
      }
      if (naturals > 0) {
        const at = s.tiles.lastIndexOf(g.tile);
        s.tiles[at] = "J";
        s.hint.jokers.push(g.tile);
        s.jokersAsked = false;
      } else {
        for (let k = 0; k < g.size; k++) {
          s.tiles[s.tiles.indexOf("J")] = g.tile;
          s.hint.jokers.splice(s.hint.jokers.indexOf(g.tile), 1);
        }
      }
    }
    s.changed();
  }

  s.setTapMode = (mode) => {
    tapMode = mode;
    $("tap-expose").setAttribute("aria-pressed", String(mode === "expose"));
    $("tap-joker").setAttribute("aria-pressed", String(mode === "joker"));
    $("tap-help").textContent = mode === "expose"
      ? "Tap a group of 3 or more to mark it exposed."
      : "Tap a group to put one more joker in it.";
  };
  $("no-jokers").addEventListener("click", () => { s.jokersAsked = false; s.changed(); });
  $("tap-expose").addEventListener("click", () => s.setTapMode("expose"));
  $("tap-joker").addEventListener("click", () => s.setTapMode("joker"));

  /** The hand changed: drawn again, and checked again. */
  s.changed = () => {
    $("jokers-ask").hidden = !s.jokersAsked || s.tiles.length === 0;
    s.drawHand();
    s.schedule();
  };

  // The tile picker: a tap adds a tile; arrow keys, Home and End move between tiles.
  picker.hidden = false;
  const pickerRows = Array.from(picker.querySelectorAll(".picker-row")).map((r) => Array.from(r.querySelectorAll("button")));
  pickerRows[0][0].tabIndex = 0;
  picker.addEventListener("click", (e) => {
    const b = e.target.closest("button[data-tile]");
    if (!b) return;
    if (s.tiles.length >= 14) {
      s.say("The hand already has 14 tiles: remove one first.", "bad");
      return;
    }
    s.tiles.push(b.dataset.tile);
    s.changed();
    if (s.keepAbove) s.keepAbove(picker);
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
  $("undo").addEventListener("click", () => { s.tiles.pop(); s.hint = null; s.changed(); });
  $("clear").addEventListener("click", () => { s.tiles = []; s.exposed = []; s.hint = null; s.jokersAsked = false; s.changed(); });

  // Typed tiles.
  handInput.addEventListener("input", () => {
    s.tiles = parseTiles(handInput.value).slice(0, 20);
    s.hint = null;
    const typed = handInput.value;
    s.drawHand();
    handInput.value = typed;
    s.schedule();
  });
  exposureInputs.forEach((input) => input.addEventListener("change", () => {
    s.exposed = exposureInputs.map((i) => parseTiles(i.value)).filter((l) => l.length >= 3).map((l) => ({ tile: l.find((t) => t !== "J"), size: l.length }));
    s.changed();
  }));
}
