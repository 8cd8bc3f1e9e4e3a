#!/bin/sh
# Remake the README's pictures with shotclock's own screenshot command:  sh docs/screens/make.sh
set -eu
cd "$(dirname "$0")/../.."
EX=docs/examples
S="docs/screens"
run() { out=$1; shift; ./dev shotclock screenshot "$S/$out.png" "$@"; }
run idle          --scenario "$EX/clock-paused-then-acted.events.jsonl" --at 60
run running       --scenario "$EX/clock-dead-hand.events.jsonl" --at 8
run countdown     --scenario "$EX/clock-dead-hand.events.jsonl" --at 27.5
run paused        --scenario "$EX/clock-paused-then-acted.events.jsonl" --at 30
run hand-dead     --scenario "$EX/clock-dead-hand.events.jsonl" --at 31
run action-at-0   --scenario "$EX/clock-tie-at-zero.events.jsonl" --at 31
run acted         --scenario "$EX/clock-paused-then-acted.events.jsonl" --at 43
run shot-extended --scenario "$EX/shot-hand.events.jsonl" --config "$EX/shot-hand.toml" --at 30 --size 1920x1080
run english       --scenario "$EX/clock-dead-hand.events.jsonl" --at 27.5 --config docs/screens/english.toml
run portrait      --scenario "$EX/clock-dead-hand.events.jsonl" --at 12 --size 480x800
run interrupted   --scenario "$EX/clock-dead-hand.events.jsonl" --at 12.4 --interrupted
run fault         --scenario "$EX/clock-dead-hand.events.jsonl" --at 8 --fault stuck=extend --fault no_sound
run check         --scenario "$EX/shot-hand.events.jsonl" --config "$EX/shot-hand.toml" --at 106
run hold          --scenario "$EX/clock-paused-then-acted.events.jsonl" --at 30 --hold floor=1.2
run shot-chips    --scenario "$EX/shot-all-in.events.jsonl" --config "$EX/shot-all-in.toml" --at 11.5
run small-running --scenario "$EX/clock-dead-hand.events.jsonl" --at 8 --size 320x240
run small-dead    --scenario "$EX/clock-dead-hand.events.jsonl" --at 31 --size 320x240
run network       --scenario "$EX/clock-dead-hand.events.jsonl" --at 8 --network down=12
run seats-running --scenario "$EX/seats-6-handed.events.jsonl" --config "$EX/seats-6-handed.toml" --at 12.5
run seats-small   --scenario "$EX/seats-6-handed.events.jsonl" --config "$EX/seats-6-handed.toml" --at 12.5 --size 320x240
run seats-fold    --scenario "$EX/seats-6-handed.events.jsonl" --config "$EX/seats-6-handed.toml" --at 36 --hold action=1.2
run seats-bank    --scenario "$EX/tempo-bank.events.jsonl" --config "$EX/tempo-bank.toml" --at 55
run seats-folded  --scenario "$EX/tempo-bank.events.jsonl" --config "$EX/tempo-bank.toml" --at 221
run level-hands   --scenario "$EX/level-final-table.events.jsonl" --config "$EX/level-final-table.toml" --at 12
run hand-for-hand --scenario "$EX/clock-paused-then-acted.events.jsonl" --at 60 --hand-for-hand 3
run cue-flash     --scenario "$EX/clock-dead-hand.events.jsonl" --config docs/screens/visual-cues.toml --at 27.1
run marked        --scenario "$EX/clock-marked.events.jsonl" --config "$EX/clock-marked.toml" --at 9
.venv/bin/python docs/screens/dealer_check.py
# The floor pages (dashboard, overlay): a real broker, fleet and chromium; about 45 s.
.venv/bin/python docs/screens/report.py
.venv/bin/python docs/screens/floor.py
.venv/bin/python docs/screens/seats_overlay.py
.venv/bin/python docs/screens/dashboard_500.py
.venv/bin/python docs/screens/demo_seats.py
.venv/bin/python docs/screens/tournament.py
.venv/bin/python docs/screens/room_screen.py
echo "wrote $S/*.png" >&2
