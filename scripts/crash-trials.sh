#!/usr/bin/env bash
# Crash trials: N times, writers submit games with idempotency keys while the service is
# stopped at a random moment (kill -9; kill -9 of its postmaster too; SIGTERM), restarted, and
# every acknowledged game checked present, every unanswered one sent again with its key and
# checked stored once. Prints the figures. Usage: scripts/crash-trials.sh [N] (default 100).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/ensure-postgres.sh
CRASH_TRIALS="${1:-100}" cargo test --locked --quiet --test crash_trials -- --nocapture 2>&1 | grep -E "crash trials|test result|panicked|FAILED|trial"
