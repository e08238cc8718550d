// The night page: how many games each table has waiting on this device, and the check-in's
// search box; and, on any page that scores, the service worker's registration.
import { readQueue, plural } from "./store.js";

export function nightPage(assets) {
  document.querySelectorAll("[data-waiting]").forEach((el) => {
    const q = readQueue(el.dataset.waiting);
    if (!q.length) return;
    const refused = q.filter((j) => j.state === "refused").length;
    el.hidden = false;
    el.textContent = plural(q.length, "game", "games") + " waiting on this device" +
      (refused ? " (" + refused + " refused: open the scoring screen to fix " + (refused === 1 ? "it" : "them") + ")."
        : ": the scoring screen sends " + (q.length === 1 ? "it" : "them") + " when the network is back.");
  });

  // The check-in: a search box that narrows the list as you type, and a count.
  const search = document.getElementById("checkin-search");
  if (search) {
    const rows = Array.from(document.querySelectorAll("#checkin-form label.check[data-name]"));
    const count = document.getElementById("checkin-count");
    const tally = () => {
      const ticked = rows.filter((r) => r.querySelector("input").checked).length;
      count.textContent = ticked + " of " + rows.length + " ticked; " + (rows.length - ticked) + " not here yet.";
    };
    search.hidden = false;
    document.querySelector("label[for=checkin-search]").hidden = false;
    search.addEventListener("input", () => {
      const q = search.value.trim().toLowerCase();
      rows.forEach((r) => { r.hidden = q !== "" && !r.dataset.name.includes(q); });
    });
    search.addEventListener("keydown", (e) => {
      // Enter ticks the only player left in the list, and never sends the form.
      if (e.key !== "Enter") return;
      e.preventDefault();
      const shown = rows.filter((r) => !r.hidden);
      if (shown.length === 1) {
        shown[0].querySelector("input").checked = true;
        search.value = "";
        rows.forEach((r) => { r.hidden = false; });
        tally();
      }
    });
    rows.forEach((r) => r.querySelector("input").addEventListener("change", tally));
    tally();
  }

  // The service worker keeps the scoring screen usable offline.
  if ("serviceWorker" in navigator && document.querySelector("#score, [data-waiting]")) {
    navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then((reg) => {
      if (reg.active) reg.active.postMessage({ keep: [location.pathname].concat(assets) });
    }).catch(() => {});
  }
}
