// Tournament-day pages: filtering lists as you type, one-tap check-in at the door (badge codes
// from a scanner or the camera), the projector views that page through by themselves, the round
// timer, and live standings and round status from the league's event stream. Every page works
// without this script; it only saves reloads and taps.
"use strict";

(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));

  // ---- Lists filtered as you type -------------------------------------------------------
  $$("input[data-filter]").forEach((input) => {
    const list = document.getElementById(input.dataset.filter);
    const none = document.getElementById(input.dataset.filter + "-none");
    input.addEventListener("input", () => {
      const q = input.value.trim().toLowerCase();
      let shown = 0;
      $$("li", list).forEach((li) => {
        const hit = !q || li.dataset.name.includes(q);
        li.hidden = !hit;
        if (hit) shown++;
      });
      if (none) none.hidden = shown > 0;
    });
  });

  // ---- Check-in at the door -------------------------------------------------------------
  const doorList = $("#door-list");
  if (doorList) {
    const find = $("#door-find");
    const search = $("#door-search");
    const count = $("#door-count");
    const none = $("#door-none");
    const night = find.dataset.night;
    let total = Number(count.dataset.total);
    let checked = Number(count.dataset.checked);
    const show = () => ($("input[name=show]:checked") || { value: "all" }).value;

    const filter = () => {
      const q = search.value.trim().toLowerCase();
      const badge = /^mjl-\d+$/.test(q);
      let shown = 0;
      $$("li", doorList).forEach((li) => {
        const state = li.classList.contains("in") ? "in" : "missing";
        const hit = (badge || !q || li.dataset.name.includes(q)) && (show() === "all" || show() === state);
        li.hidden = !hit;
        if (hit) shown++;
      });
      none.hidden = shown > 0;
    };

    const say = (text) => {
      count.textContent = "";
      const strong = (t) => { const s = document.createElement("strong"); s.textContent = t; return s; };
      if (text) count.append(text + " ");
      count.append(strong(String(checked)), " of " + total + " checked in · ", strong(String(total - checked)), " still missing");
    };

    const mark = (li, isIn) => {
      li.classList.toggle("in", isIn);
      li.classList.toggle("out", !isIn);
      const button = $("button", li);
      button.setAttribute("aria-pressed", String(isIn));
      $(".mark", li).textContent = isIn ? "✓" : "○";
      $(".state", li).textContent = isIn ? "checked in" : "not here yet";
      $("input[name=to]", li).value = isIn ? "out" : "in";
    };

    // One tap: the API changes the check-in; the page stays where it is.
    const tap = async (li, wantIn) => {
      const player = li.dataset.player;
      const name = $(".name", li).textContent;
      try {
        const res = await fetch("/api/v1/nights/" + night + "/checkins/" + player, {
          method: wantIn ? "PUT" : "DELETE",
          credentials: "same-origin",
        });
        if (!res.ok) {
          const problem = await res.json().catch(() => ({}));
          say((problem.detail || "Could not change " + name + "'s check-in") + ".");
          search.select();
          return;
        }
        const wasIn = li.classList.contains("in");
        if (wasIn !== wantIn) checked += wantIn ? 1 : -1;
        mark(li, wantIn);
        say(name + (wantIn ? " checked in." : " checked out."));
        // Done with this arrival: the box is ready for the next name or badge.
        search.value = "";
        filter();
        search.focus();
      } catch (e) {
        // The network is away: the form posts the ordinary way when it comes back.
        say("No connection: " + name + " is not checked in yet. Try again.");
        search.select();
      }
    };

    doorList.addEventListener("submit", (e) => {
      const li = e.target.closest("li");
      if (!li) return;
      e.preventDefault();
      tap(li, !li.classList.contains("in"));
    });

    const enter = () => {
      const q = search.value.trim().toLowerCase();
      let li = null;
      const badge = q.match(/^mjl-(\d+)$/);
      if (badge) {
        li = $$("li", doorList).find((x) => x.dataset.player === badge[1]);
        // The box is selected after the answer, so the next scan replaces the code instead of
        // adding to it ("MJL-1MJL-28").
        if (!li) { say("Badge " + q.toUpperCase() + " is not a player of this club."); search.select(); return; }
      } else {
        const shown = $$("li", doorList).filter((x) => !x.hidden);
        if (shown.length !== 1) {
          say(shown.length ? "Several players match: tap the one you mean." : "No player matches “" + search.value.trim() + "”.");
          if (!shown.length) search.select();
          return;
        }
        li = shown[0];
      }
      if (li.classList.contains("in")) {
        say($(".name", li).textContent + " is already checked in.");
        search.value = "";
        filter();
        search.focus();
      } else {
        tap(li, true);
      }
    };

    find.addEventListener("submit", (e) => { e.preventDefault(); enter(); });
    search.addEventListener("input", filter);
    $$("input[name=show]").forEach((r) => r.addEventListener("change", filter));

    // A phone's camera, where the browser can read QR codes.
    const camera = $("#door-camera");
    if ("BarcodeDetector" in window && navigator.mediaDevices) {
      camera.hidden = false;
      camera.addEventListener("click", async () => {
        const video = $("#door-video");
        try {
          const stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment" } });
          video.srcObject = stream;
          video.hidden = false;
          await video.play();
          const detector = new window.BarcodeDetector({ formats: ["qr_code"] });
          let last = "";
          const scan = async () => {
            if (video.hidden) return;
            const codes = await detector.detect(video).catch(() => []);
            const code = codes.map((c) => c.rawValue).find((v) => /^MJL-\d+$/i.test(v));
            if (code && code !== last) { last = code; search.value = code; enter(); }
            setTimeout(scan, 300);
          };
          scan();
        } catch (e) {
          say("The camera is not available: type or scan the badge code instead.");
        }
      });
    }
    filter();
  }

  // ---- The round timer ------------------------------------------------------------------
  const timerEl = $("#round-timer");
  if (timerEl && timerEl.dataset.night) {
    let timer = null;
    let ends = 0; // when a running timer runs out, on this device's clock
    const roundLabel = timerEl.dataset.round ? (timerEl.dataset.session || "Round") + " " + timerEl.dataset.round : "";
    const clock = (s) => {
      s = Math.max(0, Math.round(s));
      const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
      const mm = h ? String(m).padStart(2, "0") : String(m);
      return (h ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
    };
    const draw = () => {
      let text = "";
      if (timer && timer.state === "running") {
        const left = (ends - Date.now()) / 1000;
        text = left > 0 ? clock(Math.ceil(left)) + " left" : "Time is up";
      } else if (timer && timer.state === "paused") {
        text = "Paused · " + clock(timer.left_seconds) + " left";
      } else if (timer && timer.state === "over") {
        text = "Time is up";
      }
      const shown = [roundLabel, text].filter(Boolean).join(" · ");
      if (timerEl.textContent !== shown) timerEl.textContent = shown;
    };
    const refresh = async () => {
      try {
        const res = await fetch("/api/v1/nights/" + timerEl.dataset.night + "/status", { credentials: "same-origin" });
        if (!res.ok) return;
        const status = await res.json();
        timer = status.timer;
        // The seconds left as the server counted them: no need for the two clocks to agree.
        if (timer.state === "running") ends = Date.now() + timer.left_seconds * 1000;
        draw();
        document.dispatchEvent(new CustomEvent("round-status", { detail: status }));
      } catch (e) { /* offline: keep counting */ }
    };
    refresh();
    setInterval(refresh, 15000);
    setInterval(draw, 1000);
    document.addEventListener("league-event", refresh);
  }

  // ---- Pages that turn by themselves (projectors) ---------------------------------------
  const pager = $("[data-pager]");
  let repage = () => {};
  if (pager) {
    const items = $("#pager-items");
    const status = $("#pager-status");
    let page = 0;
    const pages = () => {
      const all = Array.from(items.children);
      if (!all.length) return [];
      all.forEach((x) => { x.hidden = false; });
      const top = items.getBoundingClientRect().top;
      // What must stay visible below the list: the elements after it, with their margins.
      const container = items.tagName === "TBODY" ? items.parentElement : items;
      let foot = 0;
      for (let e = container.nextElementSibling; e; e = e.nextElementSibling) {
        if (e.hidden) continue;
        const style = window.getComputedStyle(e);
        foot += e.getBoundingClientRect().height + parseFloat(style.marginTop) + parseFloat(style.marginBottom);
      }
      const padding = parseFloat(window.getComputedStyle(pager).paddingBottom) || 0;
      const room = window.innerHeight - top - foot - padding - 4;
      const first = all[0].getBoundingClientRect();
      const across = Math.max(1, Math.round(items.clientWidth / Math.max(1, first.width)));
      const perColumn = Math.max(1, Math.floor(room / Math.max(1, first.height)));
      const per = items.tagName === "TBODY" ? perColumn : perColumn * across;
      const out = [];
      for (let i = 0; i < all.length; i += per) out.push(all.slice(i, i + per));
      return out;
    };
    const show = () => {
      const list = pages();
      if (!list.length) { status.textContent = ""; return; }
      page = page % list.length;
      Array.from(items.children).forEach((x) => { x.hidden = true; });
      list[page].forEach((x) => { x.hidden = false; });
      status.textContent = list.length > 1 ? "Page " + (page + 1) + " of " + list.length + " · " : "";
    };
    repage = show;
    show();
    setInterval(() => { page++; show(); }, 10000);
    // The seating can change (a late arrival seated): the seats' screen reads it again.
    if (pager.dataset.pager === "seats") setInterval(() => location.reload(), 60000);
    window.addEventListener("resize", show);
  }

  // ---- The league's events: live standings and round status ------------------------------
  const league = pager && pager.dataset.league ? pager.dataset.league : ($("[data-status]") || {}).dataset?.league;
  if (league && "EventSource" in window) {
    const live = $("#live");
    const start = pager && pager.dataset.lastEvent ? "?last_event_id=" + pager.dataset.lastEvent : "";
    const source = new EventSource("/api/v1/leagues/" + league + "/events" + start);
    source.onopen = () => { if (live) live.textContent = "Live"; };
    source.onerror = () => { if (live) live.textContent = "Reconnecting…"; };
    let pending = null;
    const fetchStandings = () => {
      clearTimeout(pending);
      pending = setTimeout(async () => {
        const res = await fetch("/api/v1/leagues/" + league + "/standings", { credentials: "same-origin" }).catch(() => null);
        if (!res || !res.ok) return;
        drawStandings(await res.json());
      }, 100);
    };
    /** What placed a player above the next, as the server's projector page writes it. */
    const tieShort = (s) => {
      const a = s.ahead;
      if (a && (a.by === "wins" || a.by === "deal_ins" || a.by === "head_to_head")) {
        const what = a.by === "wins" ? "more wins" : a.by === "deal_ins" ? "fewer deal-ins" : "head-to-head";
        return what + " (" + a.figure + " to " + a.next_figure + ")";
      }
      if (s.shared) return s.head_to_head == null ? "shared" : "shared (head-to-head " + s.head_to_head + ")";
      return "";
    };
    const drawStandings = (view) => {
      const body = $("#pager-items");
      if (!body || body.tagName !== "TBODY") return;
      const average = pager.dataset.board === "average";
      body.textContent = "";
      view.standings.forEach((s) => {
        const tr = document.createElement("tr");
        tr.dataset.player = s.player_id;
        const cell = (tag, text, num) => {
          const c = document.createElement(tag);
          if (num) c.className = "num";
          c.textContent = text;
          tr.append(c);
          return c;
        };
        cell("td", s.rank == null ? "–" : (s.shared ? "T" : "") + s.rank, true);
        const th = cell("th", s.player);
        th.scope = "row";
        cell("td", s.games, true).classList.add("p-wide");
        cell("td", s.wins, true).classList.add("p-wide");
        const strong = document.createElement("strong");
        // The board's figure: what counts (every game on a plain board).
        strong.textContent = average ? Number(s.counted_average ?? s.average).toFixed(2) : (s.counted_points ?? s.points);
        const last = cell("td", "", true);
        last.append(strong);
        cell("td", tieShort(s)).className = "tie p-wide";
        body.append(tr);
      });
      const empty = $("#no-games");
      if (empty) empty.hidden = view.standings.length > 0;
      if (live) live.textContent = "Live · updated " + new Date().toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", timeZoneName: "short" });
      repage();
    };
    const latest = $("#latest");
    const onGame = (e) => {
      const event = JSON.parse(e.data);
      document.dispatchEvent(new CustomEvent("league-event", { detail: event }));
      if (!latest || event.type !== "game.recorded") return;
      const g = event.data;
      // Events stored before games had one shape say `scores` and `table_number`.
      const players = g.players || g.scores || [];
      const table = g.table && g.table.number !== undefined ? g.table.number : g.table_number;
      let what = "a wall game";
      if (g.outcome === "mahjong" && players.length) {
        const winner = players.find((p) => p.player.id === g.winner) ||
          players.reduce((a, b) => (b.score > a.score ? b : a));
        what = winner.player.name + " won " + winner.score;
      } else if (g.outcome === "redeal") {
        what = "a redeal";
      }
      latest.textContent = "Table " + table + ", game " + g.number + ": " + what;
    };
    ["game.recorded", "game.amended", "game.voided", "night.closed"].forEach((k) => source.addEventListener(k, onGame));
    source.addEventListener("standings.changed", () => { if (pager) fetchStandings(); });
  }

  // ---- Round status for officials --------------------------------------------------------
  const statusList = $("#status-tables");
  if (statusList) {
    document.addEventListener("round-status", (e) => {
      const s = e.detail;
      const summary = $("#status-summary");
      summary.textContent = "";
      const strong = (t) => { const x = document.createElement("strong"); x.textContent = t; return x; };
      summary.append(strong(String(s.done)), " of " + s.tables.length + " tables done · ", strong(String(s.behind)), " behind");
      statusList.textContent = "";
      s.tables.forEach((t) => {
        const li = document.createElement("li");
        li.className = "progress-" + t.state;
        li.dataset.table = t.id;
        li.append(strong("Table " + t.number), " ");
        const state = document.createElement("span");
        state.className = "progress-state";
        state.textContent = t.state === "done" ? "✓ done" : t.state === "behind" ? "⚠ behind" : "playing";
        const games = document.createElement("span");
        games.className = "progress-games";
        games.textContent = t.games + " of " + t.expected + " games";
        const who = document.createElement("span");
        who.className = "muted small";
        who.textContent = t.players.join(", ");
        li.append(state, " ", games, " ", who);
        statusList.append(li);
      });
    });
  }
})();
