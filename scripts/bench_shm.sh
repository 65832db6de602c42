#!/usr/bin/env bash
# bench_shm.sh [BUILD_DIR]: the shared-memory primitives between real
# processes: flag ping-pong against raw atomics, wake-up latency per wait
# policy, a token ring of 8 processes on this machine's cores, team creation.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
run="$build/bin/osmprun"
b="$build/bin/bench_shm"
echo "# $(date -u +%F) $(git -C "$root" rev-parse --short HEAD) on $(nproc) CPUs"
for w in spin auto; do "$run" -n 2 --wait $w "$b" pingpong 1000000; done
for w in spin yield futex auto; do "$run" -n 2 --wait $w "$b" wakeup; done
for w in yield futex auto; do "$run" -n 8 --oversubscribe --wait $w "$b" ring 2000; done
"$run" -n 8 --oversubscribe --wait spin "$b" ring 20
for n in 2 4 8 16; do "$run" -n $n --oversubscribe "$b" create 20; done
