#!/usr/bin/env bash
# cli_test.sh: the command line's contract: exit statuses, one-line errors, nothing written for bad input.
# usage: cli_test.sh SLUICE_EXE SOURCE_DIR
set -u
exe=$1
src=$2
work=$(mktemp -d /tmp/sluice_cli_XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0

check() { # check NAME EXPECTED_STATUS COMMAND...
    local name=$1 want=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL $name: exit status $got, expected $want"
        sed 's/^/  stderr: /' "$work/err" | head -5
        fails=$((fails + 1))
    else
        echo "ok   $name"
    fi
}

expect_in() { # expect_in NAME FILE PATTERN
    if ! grep -q -- "$3" "$2"; then
        echo "FAIL $1: '$3' not in $(basename "$2"):"
        sed 's/^/  /' "$2" | head -5
        fails=$((fails + 1))
    fi
}

lines_of() { wc -l <"$1" | tr -d ' '; }

# --help everywhere, exit 0
check "help" 0 "$exe" --help
expect_in "help" "$work/out" "usage: sluice"
for c in run check info; do
    check "$c --help" 0 "$exe" "$c" --help
    expect_in "$c --help" "$work/out" "usage: sluice $c"
done

# bad usage: exit 2, one line on stderr
check "no command" 2 "$exe"

# bench on the CPU: a small box, the table and the phases; bad options are exit 2
check "bench --help" 0 "$exe" bench --help
expect_in "bench --help" "$work/out" "usage: sluice bench"
check "bench box" 0 "$exe" bench --backend cpu --case box --particles 3000 --steps 2 --threads 1
expect_in "bench box" "$work/out" "particle-steps/s"
expect_in "bench box" "$work/out" "wcsph.forces"
expect_in "bench box" "$work/out" "host bytes per particle"
check "bench emps" 0 "$exe" bench --backend cpu --case box --method emps --particles 2000 --steps 2 --threads 1
expect_in "bench emps" "$work/out" "mps.density"
check "bench bad case" 2 "$exe" bench --case lake
expect_in "bench bad case" "$work/err" "accepted: dambreak3d, box"
check "bench bad counts" 2 "$exe" bench --particles 1e6,x
check "bench bad strategy" 2 "$exe" bench --backend cpu --case box --particles 2000 --strategy fastest
check "unknown command" 2 "$exe" frobnicate
expect_in "unknown command" "$work/err" "unknown command 'frobnicate'"
check "run without scene" 2 "$exe" run
check "unknown option" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --frobnicate
[ "$(lines_of "$work/err")" -eq 1 ] || { echo "FAIL unknown option: more than one line on stderr"; fails=$((fails + 1)); }
check "bad --steps" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --steps -3
check "bad --until" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --until soon
check "bad --threads" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --threads 0
check "bad --backend" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --backend quantum
expect_in "bad --backend" "$work/err" "accepted"

# info
check "info" 0 "$exe" info
expect_in "info" "$work/out" "precision"
expect_in "info" "$work/out" "OpenMP threads"

# check on every shipped scene
for s in "$src"/scenes/*.cfg; do
    check "check $(basename "$s")" 0 "$exe" check "$s"
    expect_in "check $(basename "$s")" "$work/out" "particles"
    expect_in "check $(basename "$s")" "$work/out" "time step"
done
[ -z "$(ls -A "$work" | grep -v '^out$\|^err$')" ] || { echo "FAIL check wrote files"; fails=$((fails + 1)); }

# invalid scenes: exit 2, FILE:LINE: key '...' message, nothing written
bad="$work/bad.cfg"
cat >"$bad" <<'CFG'
simulation = { dimension = 2; end_time = 0.01; };
numerics = { spacing = 0.01; ndiv = 7; };
geometry = ( { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );
output = { directory = "should_not_exist"; };
CFG
check "invalid scene run" 2 "$exe" run "$bad"
expect_in "invalid scene run" "$work/err" "bad.cfg:2: key 'numerics.ndiv'"
[ "$(lines_of "$work/err")" -eq 1 ] || { echo "FAIL invalid scene: more than one line on stderr"; fails=$((fails + 1)); }
[ ! -e "$work/should_not_exist" ] || { echo "FAIL invalid scene created its output directory"; fails=$((fails + 1)); }
check "invalid scene check" 2 "$exe" check "$bad"
check "missing scene" 2 "$exe" run "$work/nope.cfg"
expect_in "missing scene" "$work/err" "nope.cfg"
printf '\x00\x01\x02binary\xff' >"$work/bin.cfg"
check "binary scene" 2 "$exe" run "$work/bin.cfg"
: >"$work/empty.cfg"
check "empty scene" 2 "$exe" run "$work/empty.cfg"

# a short real run: exit 0, snapshots and XDMF where it says
small="$work/small.cfg"
cat >"$small" <<'CFG'
simulation = { dimension = 2; end_time = 0.02; };
numerics = { spacing = 0.01; };
geometry = ( { type = "tank"; min = [0.0, 0.0]; max = [0.2, 0.2]; },
             { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );
output = { directory = "small_out"; interval = 0.01; };
CFG
check "run" 0 "$exe" run "$small" --quiet
expect_in "run" "$work/out" "small_out"
[ -f "$work/small_out/snapshots.xmf" ] || { echo "FAIL run: no snapshots.xmf"; fails=$((fails + 1)); }
n=$(ls "$work"/small_out/snap_*.h5 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || { echo "FAIL run: $n snapshots, expected 3 (t = 0, 0.01, 0.02)"; fails=$((fails + 1)); }
ls "$work"/small_out/*.tmp >/dev/null 2>&1 && { echo "FAIL run: temporary files left"; fails=$((fails + 1)); }
check "run --out --steps" 0 "$exe" run "$small" --out other_out --steps 3 --threads 1 --quiet
[ -f "$work/other_out/snapshots.xmf" ] || { echo "FAIL --out: no output in other_out"; fails=$((fails + 1)); }
# plain progress lines when stderr is not a terminal
check "progress lines" 0 "$exe" run "$small" --out progress_out
expect_in "progress lines" "$work/err" "progress:"

# SIGINT: the run stops after its step with a final snapshot and exit status 130
long="$work/long.cfg"
sed 's/end_time = 0.02/end_time = 50.0/; s/small_out/long_out/' "$small" >"$long"
"$exe" run "$long" --quiet >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 100); do [ -f "$work/long_out/snapshots.xmf" ] && break; sleep 0.1; done
sleep 0.5
kill -INT "$pid"
wait "$pid"
got=$?
if [ "$got" -ne 130 ]; then echo "FAIL SIGINT: exit status $got, expected 130"; fails=$((fails + 1)); else echo "ok   SIGINT"; fi
expect_in "SIGINT" "$work/out" "stopped by signal"
grep -q "</Xdmf>" "$work/long_out/snapshots.xmf" || { echo "FAIL SIGINT: XDMF incomplete"; fails=$((fails + 1)); }
[ -f "$work/long_out/checkpoint.bin" ] || { echo "FAIL SIGINT: no checkpoint"; fails=$((fails + 1)); }
# ... and the run continues from it
check "restart" 0 "$exe" run "$long" --restart "$work/long_out/checkpoint.bin" --steps 2 --quiet
check "restart from garbage" 2 "$exe" run "$long" --restart "$long"
expect_in "restart from garbage" "$work/err" "not a usable checkpoint"

# kill -9: every snapshot the XDMF lists exists and the XDMF itself is complete
"$exe" run "$long" --out kill_out --quiet >/dev/null 2>&1 &
pid=$!
for _ in $(seq 1 100); do [ "$(ls "$work"/kill_out/snap_*.h5 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.1; done
kill -9 "$pid"
wait "$pid" 2>/dev/null
grep -q "</Xdmf>" "$work/kill_out/snapshots.xmf" || { echo "FAIL kill -9: XDMF incomplete"; fails=$((fails + 1)); }
for f in $(grep -o 'snap_[0-9]*\.h5' "$work/kill_out/snapshots.xmf" | sort -u); do
    [ -s "$work/kill_out/$f" ] || { echo "FAIL kill -9: $f listed but missing"; fails=$((fails + 1)); }
    head -c 8 "$work/kill_out/$f" | grep -q "HDF" || { echo "FAIL kill -9: $f is not HDF5"; fails=$((fails + 1)); }
done
echo "ok   kill -9"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
