// An app's first minutes with mahjong-league in TypeScript, through types generated from the
// served OpenAPI document (openapi-typescript) and openapi-fetch. `scripts/client-check.sh`
// generates `api.d.ts`, type-checks this file with `tsc --strict` and runs it against a
// throwaway service with the demo club:
//
//     node build/quickstart.js http://127.0.0.1:8080
//
// It finds the demo club's public league, reads its standings (and asks again with their ETag),
// pages through every game, asks for the changes since, and reads the league's event stream
// from its start to its first game's event. No token is needed: the league is public. Given a
// club's API token (`MAHJONG_TOKEN`, as a club website keeps one), it first reads the club's
// players, which only the club sees. The same file is also compiled against the document as
// released (`openapi/released/v1.json`) and run against today's service: the app built last
// month keeps working.

import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Game = components["schemas"]["Game"];
type EventView = components["schemas"]["EventView"];
type Seat = Game["players"][number]["seat"];

const base = process.argv[2] ?? "http://127.0.0.1:8080";
const api = createClient<paths>({ baseUrl: base });

/** A game in words; the switch is exhaustive, so a new outcome fails to compile. */
function inWords(g: Game): string {
  const name = (id: number | null): string =>
    g.players.find((p) => p.player.id === id)?.player.name ?? "?";
  switch (g.outcome) {
    case "mahjong": {
      const how = g.won_by === "discard" ? ` on ${name(g.discarder)}'s discard` : g.won_by === "self_pick" ? ", self-picked" : "";
      return `${name(g.winner)} went out${how}: ${g.line ?? "?"} (${g.value ?? 0})`;
    }
    case "wall":
      return "wall game";
    case "redeal":
      return "redeal";
    default: {
      const never: never = g.outcome;
      return never;
    }
  }
}

/** The first `game.*` event of a stream, read until it comes (at most 30 s). */
async function firstGameEvent(url: string): Promise<EventView & { data: Game }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 30_000);
  const res = await fetch(url, { headers: { Accept: "text/event-stream" }, signal: abort.signal });
  if (!res.body) throw new Error(`the stream answered ${res.status}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) throw new Error("the stream ended before a game's event");
      buffered += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = frame.split("\n").find((l) => l.startsWith("data:"));
        if (!data) continue;
        const event = JSON.parse(data.slice(5)) as EventView;
        if (event.type.startsWith("game.")) return event as EventView & { data: Game };
      }
    }
  } finally {
    clearTimeout(timer);
    // Done with the stream: close it (the service frees its slot at once).
    await reader.cancel().catch(() => undefined);
  }
}

function fail(what: string, response: Response): never {
  throw new Error(`${what}: the service answered ${response.status}`);
}

async function main(): Promise<void> {
  // 0. With the club's token: its players (members only).
  const token = process.env.MAHJONG_TOKEN;
  if (token) {
    const club = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });
    const players = await club.GET("/api/v1/clubs/{club}/players", { params: { path: { club: "demo" } } });
    if (!players.data) fail("the club's players with its token", players.response);
    console.log(`with the club's token: ${players.data.players.length} players, the first ${players.data.players[0]?.name ?? "none"}`);
  }

  // 1. Find the club's public league.
  const found = await api.GET("/api/v1/leagues", { params: { query: { q: "demo" } } });
  if (!found.data) fail("discovery", found.response);
  const league = found.data.leagues.find((l) => l.club === "demo");
  if (!league) throw new Error("the demo club's league is not listed");
  console.log(`league ${league.id}: ${league.name} (${league.club_name}, dates in ${league.time_zone}), ranked by ${league.board}`);
  console.log(`  limit: ${found.response.headers.get("RateLimit-Remaining")} of ${found.response.headers.get("RateLimit-Limit")} requests left`);

  // 2. Its standings, then again with their ETag: 304 while nothing changed.
  const path = { league: league.id };
  const standings = await api.GET("/api/v1/leagues/{league}/standings", { params: { path } });
  if (!standings.data) fail("standings", standings.response);
  console.log(`  ${standings.data.board_in_words} (revision ${standings.data.revision})`);
  for (const row of standings.data.standings.slice(0, 5)) {
    // What the board counts (0 is a count too); `counted_points` is null on a board that counts every game.
    const counted = row.counted_points ?? row.points;
    console.log(`  ${String(row.rank ?? "-").padStart(3)}  ${row.player.padEnd(20)} ${String(counted).padStart(6)}`);
  }
  const tag = standings.response.headers.get("ETag");
  if (!tag) throw new Error("the standings came without an ETag");
  const again = await fetch(`${base}/api/v1/leagues/${league.id}/standings`, { headers: { "If-None-Match": tag } });
  if (again.status !== 304) throw new Error(`asked again with the ETag: ${again.status}, not 304`);

  // 3. Every game, page by page; keep `last_event` to ask later for the changes only.
  const games: Game[] = [];
  let cursor: string | undefined;
  let lastEvent = 0;
  let pages = 0;
  for (;;) {
    const query = cursor === undefined ? { limit: 25 } : { limit: 25, cursor };
    const page = await api.GET("/api/v1/leagues/{league}/games", { params: { path, query } });
    if (!page.data) fail("a page of games", page.response);
    games.push(...page.data.games);
    lastEvent = page.data.last_event;
    pages += 1;
    if (page.data.next === null) break;
    cursor = page.data.next;
  }
  const ids = new Set(games.map((g) => g.id));
  if (ids.size !== games.length) throw new Error("a game was listed twice");
  const seats = new Set<Seat>(games.flatMap((g) => g.players.map((p) => p.seat)));
  const judged = games.flatMap((g) => g.dead).filter((d) => d.engine_verdict !== null).length;
  console.log(`${games.length} games in ${pages} pages, as of event ${lastEvent}; seats ${[...seats].sort().join(" ")}; ${judged} dead-hand calls judged by the engine`);
  const first = games[0];
  if (first) console.log(`  the first: night ${first.night.number} (${first.night.date}), table ${first.table.number}, game ${first.number}: ${inWords(first)}`);

  // 4. Later: only what was recorded, amended or voided since.
  const changed = await api.GET("/api/v1/leagues/{league}/games", { params: { path, query: { since: lastEvent } } });
  if (!changed.data) fail("the changes since", changed.response);
  console.log(`${changed.data.games.length} games changed since event ${lastEvent}`);

  // 5. The event stream (Server-Sent Events), read from its start: the first game's event
  // carries the game in the same shape as the lists.
  const event = await firstGameEvent(`${base}/api/v1/leagues/${league.id}/events?last_event_id=0`);
  if (event.type === "game.recorded" && "players" in event.data) {
    const listed = games.find((g) => g.id === event.data.id);
    if (!listed || listed.number !== event.data.number) throw new Error("the event's game is not the listed one");
    console.log(`stream: event ${event.id}, ${event.type}: ${inWords(event.data)}`);
  } else {
    throw new Error(`the stream's first game event was ${event.type}`);
  }

  // A cursor is only good for the list that gave it: an edited one is refused, naming it.
  if (cursor !== undefined) {
    const edited = await api.GET("/api/v1/leagues/{league}/games", { params: { path, query: { cursor: cursor.slice(0, -2) + "xx" } } });
    const problem = edited.error;
    if (edited.response.status !== 422 || problem?.errors?.[0]?.field !== "cursor") {
      throw new Error(`an edited cursor answered ${edited.response.status}`);
    }
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
