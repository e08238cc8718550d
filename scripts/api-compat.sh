#!/usr/bin/env bash
# Apps keep working: the OpenAPI document the service serves is compared with the one released
# for /api/v1 (openapi/released/v1.json) by api-schema-diff, a tool made for it (from PyPI, in a
# virtual environment of its own). It fails on a breaking change: a path, operation, parameter
# or field gone, a new required input, a changed type. The tool does not look at enum values,
# so a value gone from an enum is checked beside it. New paths and fields are fine.
#
# First the check is shown to find what it must: a copy of the released document with a path
# and a field taken out has to fail, or the check checks nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOL_VERSION=1.0.4
VENV=target/api-compat-venv
if ! "$VENV/bin/api-schema-diff" --version 2>/dev/null | grep -q "$TOOL_VERSION"; then
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "api-schema-diff==$TOOL_VERSION"
fi
DIFF="$VENV/bin/api-schema-diff"
RELEASED=openapi/released/v1.json
BIN="${MAHJONG_TEST_BIN:-target/debug/mahjong-league}"
[ -x "$BIN" ] || cargo build --locked --quiet
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$BIN" openapi > "$WORK/served.json"

# The check finds a break when there is one.
python3 - "$RELEASED" "$WORK/broken.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
del doc["paths"]["/api/v1/clubs/{club}/players"]
doc["components"]["schemas"]["Player"]["properties"].pop("name")
json.dump(doc, open(sys.argv[2], "w"))
PY
if "$DIFF" "$RELEASED" "$WORK/broken.json" --format json > "$WORK/broken.out" 2>&1; then
  echo "api-compat: the check saw no break in a document with a path and a field taken out" >&2
  exit 1
fi

# The served document against the released one.
if ! "$DIFF" "$RELEASED" "$WORK/served.json" --format json > "$WORK/served.out" 2>&1; then
  echo "api-compat: the served OpenAPI document breaks /api/v1 as released ($RELEASED):" >&2
  python3 -c 'import json,sys; [print("  -", b["path"] + ":", b["message"]) for b in json.load(open(sys.argv[1]))["breaking"]]' "$WORK/served.out" >&2 || cat "$WORK/served.out" >&2
  echo "Keep what apps use: add beside it, mark what is to go deprecated (docs/api.md)." >&2
  exit 1
fi

# Enum values gone (not seen by the tool).
python3 - "$RELEASED" "$WORK/served.json" <<'PY'
import json, sys
released, served = (json.load(open(p)) for p in sys.argv[1:3])
gone = []
def walk(old, new, at):
    if isinstance(old, dict) and isinstance(new, dict):
        if isinstance(old.get("enum"), list) and isinstance(new.get("enum"), list):
            lost = [v for v in old["enum"] if v not in new["enum"]]
            if lost:
                gone.append(f"{at}: {', '.join(map(str, lost))}")
        for k, v in old.items():
            if k in new:
                walk(v, new[k], f"{at}/{k}")
    elif isinstance(old, list) and isinstance(new, list):
        for i, (o, n) in enumerate(zip(old, new)):
            walk(o, n, f"{at}/{i}")
walk(released, served, "")
if gone:
    print("api-compat: enum values apps may send or read are gone:", file=sys.stderr)
    for g in gone:
        print("  -", g, file=sys.stderr)
    sys.exit(1)
PY
added=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["non_breaking"]))' "$WORK/served.out")
echo "api-compat: the served document keeps /api/v1 as released ($added additions, no break)"
