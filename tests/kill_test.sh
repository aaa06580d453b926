#!/usr/bin/env bash
# kill_test.sh: runs with frequent output killed with SIGKILL at random moments leave a usable output directory.
# usage: kill_test.sh SLUICE_EXE SOURCE_DIR SNAPSHOT_CHECK_EXE [TRIALS] [SEED]
#
# A run can die anywhere (OOM killer, a node lost): in the middle of a snapshot, of the XDMF index, of a
# checkpoint. What it leaves must still be usable: every snapshot the index lists opens and reads whole,
# the index is well-formed XML naming only finished files (never a temporary "*.tmp"), and the last
# checkpoint restarts. Each trial kills a fresh run after a random delay (fixed seed, so a failure
# repeats); the delays spread from before the first snapshot to dozens of snapshots and checkpoints in.
set -u
exe=$(realpath "$1")
src=$(realpath "$2")
h5check=$(realpath "$3")
trials=${4:-30}
RANDOM=${5:-2211} # a fixed sequence of delays: a failing trial repeats with the same seed
work=$(mktemp -d /tmp/sluice_kill_XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() {
    echo "FAIL trial $trial (killed after ${delay} s): $*"
    fails=$((fails + 1))
}

# The small 2D hydrostatic tank (2000 particles) with a snapshot every few steps and a checkpoint every
# 3 snapshots: its own output group replaces the scene's (libconfig refuses a group given twice).
cfg="$work/kill.cfg"
awk '/^output[ \t]*=[ \t]*\{/ { skip = 1 } !skip { print } skip && /^\};/ { skip = 0 }' \
    "$src/scenes/hydrostatic_2d.cfg" >"$cfg"
echo 'output = { directory = "unused"; interval = 0.0005; checkpoint_every = 3; };' >>"$cfg"
"$exe" check "$cfg" >/dev/null 2>"$work/err" || { echo "FAIL: the test scene is refused:"; cat "$work/err"; exit 1; }

# Well-formed XML: xmllint where installed, else Python's parser (the system one: no packages needed).
xml_ok() {
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$1" 2>/dev/null
    else
        /usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$1" 2>/dev/null
    fi
}

# Every index of DIR (snapshots.xmf, and grid.xmf where the scene has a grid) is well-formed XML and
# names only finished snapshots (snap_NNNNNN.h5, never a temporary name), each of which reads whole.
indexes_ok() { # DIR WHEN
    local x names bad listed
    for x in "$1"/*.xmf; do
        [ -e "$x" ] || continue # killed before the first snapshot: no index yet
        xml_ok "$x" || { fail "$2: $(basename "$x") is not well-formed XML"; continue; }
        # every file the index names: the HDF5 file before ':' in each DataItem
        names=$(grep -o '>[^<>]*:/' "$x" | sed 's/^>[[:space:]]*//; s/:\/$//' | sort -u)
        bad=$(printf '%s\n' "$names" | grep -v -E '^(snap_[0-9]+\.h5)?$')
        [ -z "$bad" ] || fail "$2: $(basename "$x") names $(echo $bad)"
        listed=$(printf '%s\n' "$names" | grep -E '^snap_[0-9]+\.h5$')
        [ -n "$listed" ] || { fail "$2: $(basename "$x") lists no snapshot"; continue; }
        (cd "$1" && "$h5check" $listed >"$work/h5.out" 2>&1) ||
            fail "$2: a snapshot $(basename "$x") lists does not read: $(head -1 "$work/h5.out")"
    done
}

t0=$SECONDS
snaps=0 ckpts=0 restarts=0 empty=0
for trial in $(seq 1 "$trials"); do
    # 0.05 to 2 s: from before the first snapshot to dozens of snapshots, checkpoints between
    ms=$((50 + RANDOM % 1950))
    delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
    out="$work/t$trial"
    "$exe" run "$cfg" --out "$out" --quiet >/dev/null 2>&1 &
    pid=$!
    sleep "$delay"
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    [ -d "$out" ] || { empty=$((empty + 1)); continue; }
    snaps=$((snaps + $(ls "$out" | grep -c -E '^snap_[0-9]+\.h5$')))
    indexes_ok "$out" "after the kill"
    if [ -e "$out/checkpoint.bin" ]; then
        ckpts=$((ckpts + 1))
        if "$exe" run "$cfg" --out "$out" --restart "$out/checkpoint.bin" --steps 2 --quiet >/dev/null 2>"$work/err"; then
            restarts=$((restarts + 1))
            indexes_ok "$out" "after the restart"
        else
            fail "the last checkpoint does not restart: $(head -1 "$work/err")"
        fi
    fi
    rm -rf "$out"
done
echo "$trials trials in $((SECONDS - t0)) s: $snaps snapshots found, $ckpts checkpoints (restarted: $restarts)," \
    "$empty killed before the output directory existed"
[ "$ckpts" -gt 0 ] || { echo "FAIL: no trial reached a checkpoint (delays too short for this machine?)"; fails=$((fails + 1)); }
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
