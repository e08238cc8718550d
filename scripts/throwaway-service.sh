# Sourced by scripts that need the service on a throwaway PostgreSQL (the benchmark, the API
# fuzz): `start_throwaway_service BIN NAME` starts both, and sets DIR (the data directory),
# DB_URL (database NAME on that server), BASE (the service's URL) and an EXIT trap that stops
# everything it started. SERVE_FLAGS adds flags to `serve`.
start_throwaway_service() {
  local bin="$1" name="$2"
  DIR="$(mktemp -d "/tmp/mahjong-league-$name.XXXXXX")"
  SERVER_PID=""
  THROWAWAY_BIN="$(realpath "$bin")"
  trap stop_throwaway_service EXIT
  local admin_url
  admin_url="$("$bin" db start --throwaway --data-dir "$DIR")"
  DB_URL="${admin_url/\/postgres\?/\/$name?}"
  local port
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$bin" serve --database-url "$DB_URL" --bind "127.0.0.1:$port" --data-dir "$DIR" ${SERVE_FLAGS:-} > "$DIR/serve.log" 2>&1 &
  SERVER_PID=$!
  BASE="http://127.0.0.1:$port"
  for _ in $(seq 120); do curl -fs "$BASE/readyz" >/dev/null && return 0; sleep 0.5; done
  echo "the service did not become ready; its log:" >&2
  tail -n 20 "$DIR/serve.log" >&2
  return 1
}

# Signs EMAIL up on the throwaway service with the cookie jar JAR, which is then logged in: the
# link of the sign-up mail (written to "$DIR/mail", as there is no SMTP server) is followed.
sign_up_throwaway() {
  local jar="$1" email="$2" name="$3" password="$4" token
  curl -fs -c "$jar" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"display_name\":\"$name\",\"password\":\"$password\"}" \
    "$BASE/api/v1/users" >/dev/null
  token="$(python3 "$(dirname "${BASH_SOURCE[0]}")/signup_token.py" "$DIR/mail" "$email")"
  curl -fs -b "$jar" -c "$jar" -H 'Content-Type: application/json' -d "{\"password\":\"$password\"}" "$BASE/api/v1/sign-ups/$token" >/dev/null
}

stop_throwaway_service() {
  if [ -n "${SERVER_PID:-}" ]; then
    kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  fi
  "$THROWAWAY_BIN" db stop --data-dir "$DIR" >/dev/null 2>&1 || true
  rm -rf "$DIR"
}
