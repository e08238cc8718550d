// The games kept on this device: a queue per table in localStorage, each game with its own
// idempotency key. The night page reads it to say what waits; the scoring screen sends it.

const queueKey = (table) => "mahjong-league:queue:" + table;

export function readQueue(table) {
  try {
    const q = JSON.parse(localStorage.getItem(queueKey(table)) || "[]");
    return Array.isArray(q) ? q : [];
  } catch (_) {
    return [];
  }
}

export function writeQueue(table, q) {
  if (q.length) localStorage.setItem(queueKey(table), JSON.stringify(q));
  else localStorage.removeItem(queueKey(table));
}

export function newKey() {
  if (crypto.randomUUID) return "game-" + crypto.randomUUID();
  const b = new Uint8Array(16);
  crypto.getRandomValues(b);
  return "game-" + Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

/** A game kept by the earlier version of this screen (one per table) joins the queue with its
 *  own key, so a copy the server already stored is not stored twice. */
export function adoptOlder(table) {
  const older = localStorage.getItem("mahjong-league:pending:" + table);
  if (!older) return;
  try {
    const job = JSON.parse(older);
    const q = readQueue(table);
    if (job && job.key && job.game && !q.some((j) => j.key === job.key)) {
      q.unshift({ key: job.key, table: table, game: job.game, label: "Game " + (job.game.number || "?") + " (kept earlier)", state: "waiting" });
      writeQueue(table, q);
    }
  } catch (_) { /* unreadable: nothing to keep */ }
  localStorage.removeItem("mahjong-league:pending:" + table);
}
