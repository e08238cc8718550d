#!/usr/bin/env bash
# CLI batch throughput: N hand checks (winning, losing and with exposures) through
# `hand check --batch` against the built-in demo card. Prints hands per second.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-50000}"
cargo build --release --quiet
INPUT="$(mktemp)"
trap 'rm -f "$INPUT"' EXIT
for ((i = 0; i < N / 4; i++)); do
  echo '{"hand": "F F 2B 2B J 2B 4C 4C 6C 6C 8B 8B J 8B"}'
  echo '{"hand": "F 1B 3B 5C 7C 9D N E W S RD GD WD J"}'
  echo '{"hand": "F F 2B 2B 2B 2B 4C 4C 6C 6C 8B 8B J 8B", "exposures": ["8B 8B J 8B"]}'
  echo '{"hand": ["N","N","N","N","E","E","E","W","W","W","S","S","S","S"]}'
done > "$INPUT"
LINES=$(wc -l < "$INPUT")
START=$(date +%s.%N)
target/release/mahjong-league hand check --card demo-2026 --batch < "$INPUT" > /dev/null
END=$(date +%s.%N)
python3 -c "s=$END-$START; print(f'{$LINES} hands in {s:.3f} s: {$LINES/s:,.0f} hands/s')"
