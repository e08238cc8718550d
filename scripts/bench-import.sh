#!/usr/bin/env bash
# Measures history in on a release server on a throwaway PostgreSQL: a games.csv of NIGHTS
# nights × TABLES tables × 4 games × 4 players (default 50 × 50: 10,000 games, 40,000 rows,
# 200 players) checked (dry run, with the service's memory sampled meanwhile, then three at
# once), imported, then the standings' first read and the same file sent again (refused: its
# nights are there); then `db backup` of that database while the service serves, and `db
# restore` of it into an empty one. Everything it starts it stops. NIGHTS=125 TABLES=100 is
# the 200,000-row file of the README's memory figure, with COMPACT=1 (only the needed columns,
# short names: 8 MB; the export's own columns make it 18 MB, past the 16 MiB limit).
set -euo pipefail
cd "$(dirname "$0")/.."
NIGHTS="${NIGHTS:-50}"
TABLES="${TABLES:-50}"
scripts/ensure-postgres.sh
cargo build --release --quiet --bins
BIN=target/release/mahjong-league
source scripts/throwaway-service.sh
SERVE_FLAGS="--api-rate-limit 0 --token-rate-limit 0" start_throwaway_service "$BIN" import

J='Content-Type: application/json'
sign_up_throwaway "$DIR/jar" bench@example.org Bench "bench password 1"
curl -fs -b "$DIR/jar" -H "$J" -d '{"slug":"bench","name":"Bench club"}' "$BASE/api/v1/clubs" >/dev/null
LEAGUE="$(curl -fs -b "$DIR/jar" -H "$J" -d '{"name":"Imported","card":"demo-2026","ruleset":"nmjl-money","board":"best_per_night","best_per_night":2,"drop_worst_nights":1}' "$BASE/api/v1/clubs/bench/leagues" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"

python3 - "$NIGHTS" "$TABLES" "${COMPACT:-0}" > "$DIR/games.csv" <<'PY'
import datetime, random, sys
nights, tables, compact = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
# COMPACT=1: only the needed columns and short names, 200,000 rows in under 10 MB (a club's
# paper sheets typed in look like this more than like an export), every hand worth 25.
rng = random.Random(7)
players = [f"P{i:03d}" if compact else f"Player {i:03d}" for i in range(tables * 4)]
if compact:
    print("night,date,table,game,outcome,player,seat,score,role,won_by")
else:
    print("night,date,table,game,status,outcome,line,value,player,seat,score,breakdown,won_by,role,dead,jokerless")
for n in range(1, nights + 1):
    day = datetime.date(2026, 1, 6) + datetime.timedelta(days=7 * (n - 1))
    rng.shuffle(players)
    for t in range(1, tables + 1):
        seated = players[4 * (t - 1): 4 * t]
        for g in range(1, 5):
            east = (g - 1) % 4
            winner = rng.choice(seated)
            value = 25 if compact else rng.choice([25, 30, 35, 50])
            for i, p in enumerate(seated):
                wind = "ESWN"[(i - east) % 4]
                role = "winner" if p == winner else ""
                score = 3 * value if p == winner else -value
                if compact:
                    print(f"{n},{day},{t},{g},mahjong,{p},{wind},{score},{role},self_pick")
                else:
                    print(f"{n},{day},{t},{g},recorded,mahjong,2468#1,{value},{p},{wind},{score},,self_pick,{role},false,false")
PY
ROWS=$(($(wc -l < "$DIR/games.csv") - 1))
echo "file: $ROWS rows, $(du -h "$DIR/games.csv" | cut -f1)"
time_post() {
  curl -s -o "$DIR/answer.json" -w '%{http_code} %{time_total}\n' -b "$DIR/jar" -H 'Content-Type: text/csv' \
    --data-binary @"$DIR/games.csv" "$BASE/api/v1/leagues/$LEAGUE/games.csv$1"
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$SERVER_PID/status"; }
# The service's memory while a request runs: sampled every 20 ms, the highest kept.
sample_peak() {
  local peak=0 now
  while [ ! -e "$DIR/stop-sampling" ]; do
    now=$(rss_kb); [ "$now" -gt "$peak" ] && peak=$now
    sleep 0.02
  done
  echo "$peak" > "$DIR/peak"
}
IDLE=$(rss_kb)
rm -f "$DIR/stop-sampling"; sample_peak & SAMPLER=$!
echo "dry run (status, seconds): $(time_post '?dry_run=true')"
touch "$DIR/stop-sampling"; wait "$SAMPLER"
echo "memory: $((IDLE / 1024)) MB idle, $(( $(cat "$DIR/peak") / 1024 )) MB at the dry run's peak: $(( ($(cat "$DIR/peak") - IDLE) / 1024 )) MB over idle"
# Three at once: two are read, the third is told to come back (429 with Retry-After).
AT_ONCE=()
for i in 1 2 3; do time_post '?dry_run=true' > "$DIR/at-once.$i" & AT_ONCE+=($!); done
for pid in "${AT_ONCE[@]}"; do wait "$pid" || true; done
echo "three dry runs at once (status, seconds): $(cat "$DIR"/at-once.* | tr '\n' ' ')"
echo "memory after them: $(( $(rss_kb) / 1024 )) MB"
echo "import  (status, seconds): $(time_post '')"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print("  stored", r["games"], "games over", len(r["nights"]), "nights,", len(r["players_created"]), "players created")' "$DIR/answer.json"
echo "first standings read (status, seconds): $(curl -s -o /dev/null -w '%{http_code} %{time_total}' -b "$DIR/jar" "$BASE/api/v1/leagues/$LEAGUE/standings")"
echo "second read (status, seconds): $(curl -s -o /dev/null -w '%{http_code} %{time_total}' -b "$DIR/jar" "$BASE/api/v1/leagues/$LEAGUE/standings")"
echo "the same file again (status, seconds): $(time_post '')"

# Backup and restore of the database the import filled (the service still serving).
START=$(date +%s.%N)
"$BIN" db backup --out "$DIR/import.dump" --database-url "$DB_URL" >/dev/null
echo "db backup (seconds, bytes): $(python3 -c "import time; print(round(time.time() - $START, 2))") $(stat -c %s "$DIR/import.dump")"
START=$(date +%s.%N)
"$BIN" db restore "$DIR/import.dump" --database-url "${DB_URL/\/import?/\/restored?}" >/dev/null
echo "db restore into an empty database (seconds): $(python3 -c "import time; print(round(time.time() - $START, 2))")"
