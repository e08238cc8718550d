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
  /** The status line: what became of the last game sent (kept until a refusal is dealt with).
   *  With `short`, the line gives way to it once the next game is being entered, so the bar
   *  stays small while the scorer works (what it said is in the games entered and the totals). */
  s.status = (text, cls, short) => {
    sent.className = "sent " + (cls || "");
    sent.textContent = text;
    if (short) sent.dataset.short = short;
    else delete sent.dataset.short;
  };
  const shorten = () => {
    if (sent.dataset.short === undefined) return;
    sent.textContent = sent.dataset.short;
    delete sent.dataset.short;
  };
  s.form.addEventListener("click", shorten);
  s.form.addEventListener("input", shorten);
}

export function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + Math.abs(n) : "0"; }
