#!/usr/bin/env bash
# `scripts/leftovers.sh RUN_ID`: the processes a test run left behind. Every process the run starts
# (the test binaries, chromedriver and Chromium, services, PostgreSQL servers, the fuzz's service)
# inherits MAHJONG_TEST_RUN=RUN_ID from scripts/test.sh; once the run is over none may remain.
# Names each one found (pid, memory, command), stops it (TERM, then KILL after 5 s) and exits 1;
# exits 0 when there are none. Run it without the mark in its own environment (`env -u
# MAHJONG_TEST_RUN`), or it finds itself.
set -uo pipefail
run="${1:?usage: scripts/leftovers.sh RUN_ID}"
found() {
  local pid
  for env in /proc/[0-9]*/environ; do
    pid="${env#/proc/}"; pid="${pid%/environ}"
    [ "$pid" = "$$" ] && continue
    if { tr '\0' '\n' < "$env"; } 2>/dev/null | grep -qx "MAHJONG_TEST_RUN=$run"; then
      echo "$pid"
    fi
  done
}
pids="$(found)"
if [ -z "$pids" ]; then
  echo "no process of this test run is left running"
  exit 0
fi
total=0
echo "processes of this test run still running after it ended:" >&2
for pid in $pids; do
  rss="$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)"
  total=$((total + ${rss:-0}))
  printf '  pid %s, %s MiB: %s\n' "$pid" "$(( ${rss:-0} / 1024 ))" "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | cut -c1-200)" >&2
done
echo "  $(echo "$pids" | wc -w) processes, $((total / 1024)) MiB together; stopping them" >&2
kill -TERM $pids 2>/dev/null
for _ in $(seq 50); do
  left="$(found)"
  [ -z "$left" ] && break
  sleep 0.1
done
left="$(found)"
[ -n "$left" ] && kill -KILL $left 2>/dev/null
exit 1
