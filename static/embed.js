// A public league's standings framed on another site: follows the league's event stream and
// draws the standings again when they change (no reload). Without scripts the table is as it
// was when the page loaded.
"use strict";

(function () {
  const main = document.querySelector("[data-embed]");
  if (!main || !("EventSource" in window)) return;
  const league = main.dataset.embed;
  const average = main.dataset.board === "average";
  const rows = document.getElementById("embed-rows");
  const empty = document.getElementById("embed-empty");
  const live = document.getElementById("embed-live");
  const waiting = document.getElementById("embed-waiting");
  const say = (text) => { if (live.textContent !== text) live.textContent = text; };

  const draw = (view) => {
    rows.textContent = "";
    view.standings.forEach((s) => {
      const tr = document.createElement("tr");
      tr.dataset.player = s.player_id;
      const cell = (tag, text, cls) => {
        const c = document.createElement(tag);
        if (cls) c.className = cls;
        c.textContent = text;
        tr.append(c);
        return c;
      };
      cell("td", s.rank == null ? "–" : (s.shared ? "T" : "") + s.rank, "num");
      cell("th", s.player).scope = "row";
      cell("td", s.games, "num embed-wide");
      cell("td", s.wins, "num embed-wide");
      const strong = document.createElement("strong");
      strong.textContent = average ? Number(s.counted_average ?? s.average).toFixed(2) : (s.counted_points ?? s.points);
      cell("td", "", "num").append(strong);
      rows.append(tr);
    });
    empty.hidden = view.standings.length > 0;
    if (waiting) {
      const n = (view.games_awaiting || 0) + (view.games_disputed || 0);
      waiting.hidden = n === 0;
      waiting.textContent = n === 1 ? "1 game is not counted yet: it waits for confirmation." : n + " games are not counted yet: they wait for confirmation.";
    }
    say("Live · updated " + new Date().toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", timeZoneName: "short" }));
  };

  let pending = null;
  const refresh = () => {
    clearTimeout(pending);
    pending = setTimeout(async () => {
      try {
        const res = await fetch("/api/v1/leagues/" + league + "/standings", { credentials: "omit" });
        if (res.ok) draw(await res.json());
      } catch (e) { /* offline: the next change tries again */ }
    }, 150);
  };

  const source = new EventSource("/api/v1/leagues/" + league + "/events?last_event_id=" + main.dataset.lastEvent);
  source.onopen = () => say("Live");
  source.onerror = () => say("Reconnecting…");
  source.addEventListener("standings.changed", refresh);
})();
