#!/usr/bin/env bash
# demo.sh: installs what is missing, builds osmp and runs the main job: the
# communication tree of this machine, then of a paper machine (the 2x64-core
# AMD Rome of Figure 4, 128 processes one per core), also drawn as a picture,
# and what the cost model recommends for that machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$root/build" > /dev/null
echo "== this machine"
"$root/build/bin/osmp-topo"
echo
echo "== paper machine: 2x AMD EPYC 7742 (Rome), 128 processes"
"$root/build/bin/osmp-topo" --topology rome -n 128 --svg "$root/build/rome-128.svg"
echo "(drawn: build/rome-128.svg)"
echo
echo "== the model's virtual hierarchies for it (allreduce, typical costs)"
"$root/build/bin/osmp-model" --topology rome -n 128 --recommend --op allreduce --sizes 8,64K,1M |
  sed -n "/^candidates/,/^none/p"
