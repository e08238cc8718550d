"""Seeds a running instance with real data for the API fuzz run and prints what it made as JSON.

A club with an owner, eight players, a public league and a members-only one, a night with
check-ins and two locked tables, two games, an uploaded card, an admin token and the owner's
session cookie.
"""

import http.cookiejar
import json
import os
import sys
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from signup_token import token  # noqa: E402

BASE = sys.argv[1]
# The service's data directory: its sign-up mail is read from there (no SMTP server).
DATA_DIR = sys.argv[2]
jar = http.cookiejar.CookieJar()
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))


def call(method, path, body=None, content_type="application/json"):
    data = None
    if body is not None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method)
    if data is not None:
        req.add_header("Content-Type", content_type)
    with opener.open(req) as res:
        text = res.read().decode()
        return json.loads(text) if text else None


call("POST", "/api/v1/users", {"email": "fuzz@example.org", "display_name": "Fuzz Owner", "password": "fuzz password 1"})
user = call("POST", f"/api/v1/sign-ups/{token(os.path.join(DATA_DIR, 'mail'), 'fuzz@example.org')}", {"password": "fuzz password 1"})
call("POST", "/api/v1/clubs", {"slug": "tuesday-tiles", "name": "Tuesday Tiles", "time_zone": "America/New_York"})
players = [call("POST", "/api/v1/clubs/tuesday-tiles/players", {"name": f"Player {i}"})["id"] for i in range(1, 9)]
card = call(
    "POST",
    "/api/v1/clubs/tuesday-tiles/cards",
    'name = "Fuzz card"\nyear = 2026\n\n[[hand]]\nsection = "Winds"\npattern = "NNNN EEE WWW SSSS"\nvalue = 25\n',
    "application/toml",
)
league = call("POST", "/api/v1/clubs/tuesday-tiles/leagues", {"name": "Open", "card": "demo-2026", "ruleset": "nmjl-money", "visibility": "public"})
call("POST", "/api/v1/clubs/tuesday-tiles/leagues", {"name": "Members", "card": str(card["id"]), "ruleset": "bigcard-points"})
night = call("POST", f"/api/v1/leagues/{league['id']}/nights", {"date": "2026-03-03"})
for p in players:
    call("PUT", f"/api/v1/nights/{night['id']}/checkins/{p}")
locked = call("PUT", f"/api/v1/nights/{night['id']}/tables", {"tables": [players[:4], players[4:]]})
table = locked["tables"][0]["id"]
game = call(
    "POST",
    f"/api/v1/tables/{table}/games",
    {"outcome": "mahjong", "winner": players[0], "hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B", "won_by": "self_pick"},
)
call("POST", f"/api/v1/tables/{table}/games", {"outcome": "wall"})
token = call("POST", "/api/v1/clubs/tuesday-tiles/tokens", {"name": "fuzz", "scopes": ["admin"]})
# A second token for the revoke operation to find.
spare = call("POST", "/api/v1/clubs/tuesday-tiles/tokens", {"name": "spare", "scopes": ["read"]})
print(
    json.dumps(
        {
            "token": token["token"],
            "token_id": spare["id"],
            "club": "tuesday-tiles",
            "league": league["id"],
            "night": night["id"],
            "table": table,
            "game": game["id"],
            "player": players[0],
            "card": card["id"],
            "user": user["id"],
            # The owner's login, for the operations only a logged-in person may call.
            "session": next(c.value for c in jar if c.name == "ml_session"),
        }
    )
)
