#!/usr/bin/env bash
# `bash scripts/bench-passwords.sh` (N=400 checks, C=16 clients): what a burst of password checks
# costs the process in memory. A release service on a throwaway PostgreSQL (--trust-proxy, so each
# check comes from an address of its own and no limit refuses it: every one is hashed); N log-ins
# with a wrong password for one account from C clients at once. Prints the resident memory (RSS)
# idle before, at its peak during the burst (sampled every 10 ms, and the kernel's high-water
# mark), and 5 s after, with the answers' statuses. BIN=path/to/mahjong-league measures another
# build (an older commit's, say).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${BIN:-}" ]; then
  cargo build --release --locked --quiet
  BIN=target/release/mahjong-league
fi
source scripts/throwaway-service.sh
SERVE_FLAGS="--trust-proxy" start_throwaway_service "$BIN" passwords
psql -q "$DB_URL" -c "INSERT INTO users (email, display_name, password_hash) VALUES ('rose@example.org', 'Rose', '\$argon2id\$v=19\$m=19456,t=2,p=1\$gZiV/M1gPc22ElAH/Jh1Hw\$CWOrkoo7oJBQ/iyh7uJ0LO2aLEfrHwTWllSAxT0zRno')"
python3 - "$BASE" "$SERVER_PID" "${N:-400}" "${C:-16}" <<'PY'
import collections, concurrent.futures, json, sys, threading, time, urllib.request, urllib.error

base, pid, n, c = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def status(field):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # MiB
    return 0.0

def login(i):
    body = json.dumps({"email": "rose@example.org", "password": f"wrong password {i}"}).encode()
    req = urllib.request.Request(base + "/api/v1/session", data=body, method="POST",
        headers={"Content-Type": "application/json", "X-Forwarded-For": f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256 + 1}"})
    try:
        with urllib.request.urlopen(req) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code

# Warm up: a few checks one at a time, so idle is measured with the service's threads started.
for i in range(4):
    login(10_000_000 + i)
time.sleep(2)
idle = status("VmRSS")
peak = idle
done = threading.Event()
def sample():
    global peak
    while not done.is_set():
        peak = max(peak, status("VmRSS"))
        time.sleep(0.01)
t = threading.Thread(target=sample); t.start()
start = time.monotonic()
with concurrent.futures.ThreadPoolExecutor(c) as pool:
    statuses = collections.Counter(pool.map(login, range(n)))
took = time.monotonic() - start
done.set(); t.join()
time.sleep(5)
after = status("VmRSS")
hwm = status("VmHWM")
print(f"{n} wrong-password log-ins from {c} clients in {took:.1f} s: statuses {dict(statuses)}")
print(f"RSS idle {idle:.0f} MiB, peak {peak:.0f} MiB (high-water mark {hwm:.0f} MiB), 5 s after {after:.0f} MiB")
print(f"growth at peak {peak - idle:.0f} MiB (high-water mark {hwm - idle:.0f} MiB); after {after - idle:+.0f} MiB over idle")
PY
