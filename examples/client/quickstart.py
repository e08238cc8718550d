"""An app's first minutes with mahjong-league, through a client generated from the committed
OpenAPI document (openapi-python-client; `scripts/client-check.sh` generates it as `mlclient`).

    python quickstart.py http://127.0.0.1:8080

It finds the demo club's public league, reads its standings, pages through every game, then
follows the league's event stream until a game is recorded. No token is needed for any of it:
the league is public. With `SCORER_EMAIL` and `SCORER_PASSWORD` set (the test command sets the
demo owner's), it also records that game itself, as a scorer at a table would.
"""

import json
import os
import sys
import threading
import time

from mlclient import Client
from mlclient.api.games import league_games
from mlclient.api.leagues import discover
from mlclient.api.standings import show_standings as standings
from mlclient.models import GamePage, LeaguePage, StandingsView
from mlclient.types import UNSET


def main(base: str) -> None:
    client = Client(base_url=base, timeout=30.0)

    # 1. Find the club's public league (no token: public leagues are open to anyone).
    found = discover.sync(client=client, q="demo")
    assert isinstance(found, LeaguePage), found
    league = next(l for l in found.leagues if l.club == "demo")
    print(f"league {league.id}: {league.name} ({league.club_name}), ranked by {league.board}")

    # 2. Its standings.
    table = standings.sync(league.id, client=client)
    assert isinstance(table, StandingsView), table
    print(f"  {table.board_in_words}")
    for row in table.standings[:5]:
        # A board that does not count every game ranks by what counts.
        counted = row.counted_points if isinstance(row.counted_points, int) else row.points
        print(f"  {row.rank or '-':>3}  {row.player:<20} {counted:>6} points counted ({row.points} in all {row.games} games)")

    # 3. Every game, page by page (keep `last_event` to ask later for changes only).
    games, cursor, pages = [], UNSET, 0
    while True:
        page = league_games.sync(league.id, client=client, limit=25, cursor=cursor)
        assert isinstance(page, GamePage), page
        games.extend(page.games)
        pages += 1
        if not page.next_:
            break
        cursor = page.next_
    ids = [g.id for g in games]
    assert len(ids) == len(set(ids)), "a game listed twice"
    print(f"{len(games)} games in {pages} pages; listing as of event {page.last_event}")
    changed = league_games.sync(league.id, client=client, since=page.last_event)
    assert isinstance(changed, GamePage) and changed.games == [], changed

    # 4. Follow the event stream until a game is recorded.
    http = client.get_httpx_client()
    scorer = None
    with http.stream("GET", f"/api/v1/leagues/{league.id}/events", timeout=30.0) as stream:
        if os.environ.get("SCORER_EMAIL"):
            scorer = threading.Thread(target=record_a_game, args=(base, league.id), daemon=True)
            scorer.start()
        event, deadline = None, time.monotonic() + 30
        for line in stream.iter_lines():
            if line.startswith("event:"):
                event = line.split(":", 1)[1].strip()
            elif line.startswith("data:") and event == "game.recorded":
                data = json.loads(line.split(":", 1)[1])
                game = data["data"]
                print(f"live: {event} at table {game['table']['number']}, game {game['number']} ({game['outcome']})")
                break
            if time.monotonic() > deadline:
                raise SystemExit("no game.recorded event within 30 s")
    if scorer:
        scorer.join(timeout=30)
    after = league_games.sync(league.id, client=client, since=page.last_event)
    assert isinstance(after, GamePage) and len(after.games) == 1, after
    print(f"since event {page.last_event}: {len(after.games)} new game, id {after.games[0].id}")


def record_a_game(base: str, league: int) -> None:
    """The scorer's side (not the app's): a new night, four players at one table, a wall game."""
    time.sleep(0.5)
    scorer = Client(base_url=base, timeout=30.0).get_httpx_client()

    def call(method: str, path: str, body=None):
        res = scorer.request(method, path, json=body)
        assert res.status_code < 300, (path, res.status_code, res.text)
        return res.json() if res.content else None

    call("POST", "/api/v1/session", {"email": os.environ["SCORER_EMAIL"], "password": os.environ["SCORER_PASSWORD"]})
    players = [p["id"] for p in call("GET", "/api/v1/clubs/demo/players")["players"]][:4]
    night = call("POST", f"/api/v1/leagues/{league}/nights", {"date": time.strftime("%Y-%m-%d")})
    for p in players:
        call("PUT", f"/api/v1/nights/{night['id']}/checkins/{p}")
    locked = call("PUT", f"/api/v1/nights/{night['id']}/tables", {"tables": [players]})
    call("POST", f"/api/v1/tables/{locked['tables'][0]['id']}/games", {"number": 1, "outcome": "wall"})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8080")
