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

  // What is tapped next stays above the bar. The page's scroll padding is the bar's height, so
  // focus moves and scrollIntoView keep clear of it; `keepAbove(el)` scrolls `el` up until its
  // foot is above the bar, never so far that its head leaves the top of the screen.
  const box = s.$("score-bar");
  const pad = () => { document.documentElement.style.scrollPaddingBottom = (box.offsetHeight + 8) + "px"; };
  pad();
  if (window.ResizeObserver) new ResizeObserver(pad).observe(box);
  s.keepAbove = (el) => {
    if (!el || el.hidden || el.offsetParent === null) return;
    const top = box.getBoundingClientRect().top;
    const r = el.getBoundingClientRect();
    const over = r.bottom - top + 8;
    if (over > 0) window.scrollBy(0, Math.min(over, Math.max(0, r.top - 8)));
  };
}

export function signed(n) { return n > 0 ? "+" + n : n < 0 ? "−" + Math.abs(n) : "0"; }
