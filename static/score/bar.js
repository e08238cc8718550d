// The bar at the foot of the screen: the verdict on the game being entered, each player's
// points, Save, and the status line that says what became of the games sent.

export function bar(s) {
  s.verdict = s.$("verdict");
  s.points = s.$("points");
  s.save = s.$("save");
  const sent = s.$("sent");

  /** The verdict in the scorer's words, marked ✓ or ✗ as well as by colour. */
  s.say = (text, cls) => {
    s.verdict.textContent = "";
    const p = document.createElement("p");
    p.className = cls || "";
    p.textContent = (cls === "bad" ? "✗ " : cls === "ok" ? "✓ " : "") + text;
    s.verdict.appendChild(p);
  };
  s.ready = (ok) => { s.save.disabled = !ok; };
  /** The status line: what became of the last game sent (kept until a refusal is dealt with). */
  s.status = (text, cls) => {
    sent.className = "sent " + (cls || "");
    sent.textContent = text;
  };
}

export function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + Math.abs(n) : "0"; }
