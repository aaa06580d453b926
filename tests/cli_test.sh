#!/usr/bin/env bash
# cli_test.sh: the command line's contract: exit statuses, one-line errors, nothing written for bad input.
# usage: cli_test.sh SLUICE_EXE SOURCE_DIR SNAPSHOT_CHECK_EXE
set -u
exe=$1
src=$2
h5check=$3
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
expect_in "bench box" "$work/out" "work per particle on the starting layout"
expect_in "bench box" "$work/out" "floors per step: arithmetic"
check "bench emps" 0 "$exe" bench --backend cpu --case box --method emps --particles 2000 --steps 2 --threads 1
expect_in "bench emps" "$work/out" "mps.density"
# the floating case (issue 24): ten bodies, and the line with their share of the step
check "bench floating" 0 "$exe" bench --case floating --backend cpu --particles 2e4 --steps 3 --threads 1
expect_in "bench floating" "$work/out" "floating.force"
expect_in "bench floating" "$work/out" "floating bodies (10): force pass"
check "bench bad case" 2 "$exe" bench --case lake
expect_in "bench bad case" "$work/err" "accepted: dambreak3d, box"
check "bench bad counts" 2 "$exe" bench --particles 1e6,x
check "bench bad strategy" 2 "$exe" bench --backend cpu --case box --particles 2000 --strategy fastest
# bench --case operators on the CPU: a small lattice, the table with its floors; bad options are exit 2
check "bench operators" 0 "$exe" bench --case operators --backend cpu --lattice 15 --ndiv 1,2 --reps 1 --threads 1
expect_in "bench operators" "$work/out" "MPS operators on a 15^3 lattice (3375 particles)"
expect_in "bench operators" "$work/out" "flop-floor"
for op in mps-gradient mps-laplacian lsmps-gradient; do
    for d in spherical cubic; do
        expect_in "bench operators" "$work/out" "^$op  *$d  *2  openmp"
    done
done
check "bench operators --help" 0 "$exe" bench --case operators --help
expect_in "bench operators --help" "$work/out" "usage: sluice bench --case operators"
check "bench operators bad ndiv" 2 "$exe" bench --case operators --backend cpu --ndiv 1,4
expect_in "bench operators bad ndiv" "$work/err" "--ndiv '1,4' is not a list of up to 3 of 1, 2, 3"
check "bench operators bad domain" 2 "$exe" bench --case operators --backend cpu --domain round
expect_in "bench operators bad domain" "$work/err" "--domain 'round' is not a list of spherical, cubic"
check "bench operators bad lattice" 2 "$exe" bench --case operators --backend cpu --lattice 2
expect_in "bench operators bad lattice" "$work/err" "--lattice '2' is not a whole number in 3..300"
check "bench operators unknown option" 2 "$exe" bench --case operators --particles 1e6
expect_in "bench operators unknown option" "$work/err" "unknown option '--particles'"
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

# a sensor's face with no wall under it: refused by check and by run, with file, line, key and range
printf '%s\n' 'numerics = { spacing = 0.01; };' \
    'geometry = ( { type = "tank"; min = [0.0, 0.0]; max = [0.3, 0.3]; },' \
    '             { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );' \
    'probes = { pressure = (' \
    '  { name = "P"; at = [0.15, 0.15]; diameter = 0.01; } ); };' >"$work/face.cfg"
for c in check "run --out $work/face_out"; do
    check "${c%% *}: a face without a wall" 2 "$exe" $c "$work/face.cfg"
    expect_in "${c%% *}: a face without a wall" "$work/err" "face.cfg:5: key 'probes.pressure\[0\].diameter': sensor 'P' has a face 0.01 m across but no wall"
done
rm -rf "$work/face.cfg" "$work/face_out"
check "check: faces counted" 0 "$exe" check "$src/scenes/lobovsky_2d.cfg"
expect_in "check: faces counted" "$work/out" "4 pressure (4 over their face)"

# info
check "info" 0 "$exe" info
expect_in "info" "$work/out" "precision"
expect_in "info" "$work/out" "OpenMP threads"

# check on every shipped scene
for s in "$src"/scenes/*.cfg; do
    check "check $(basename "$s")" 0 "$exe" check "$s"
    expect_in "check $(basename "$s")" "$work/out" "particles"
    expect_in "check $(basename "$s")" "$work/out" "time step"
    expect_in "check $(basename "$s")" "$work/out" "^walls "
done
# each scheme names the wall model it picked (boundary/registry.c)
check "check walls wcsph" 0 "$exe" check "$src/scenes/dam_break_2d.cfg"
expect_in "check walls wcsph" "$work/out" "^walls           dynamic "
check "check walls mps" 0 "$exe" check "$src/scenes/dam_break_2d_mps.cfg"
expect_in "check walls mps" "$work/out" "^walls           mps_layers "
check "check walls emps" 0 "$exe" check "$src/scenes/hydrostatic_2d_emps.cfg"
expect_in "check walls emps" "$work/out" "^walls           mps_extrapolated "
# moving walls are listed with their item and law (core/motion.h)
check "check moving walls" 0 "$exe" check "$src/scenes/gate_dam_break_2d.cfg"
expect_in "check moving walls" "$work/out" "^moving walls    geometry\[2\] (obstacle, line [0-9]*): gate law"
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
# bench times the flow the checkpoint holds (not the scene's first steps); it needs the scene that wrote it
check "bench --restart" 0 "$exe" bench --backend cpu --scene "$long" --restart "$work/long_out/checkpoint.bin" --steps 1 --threads 1
expect_in "bench --restart" "$work/out" "long_out/checkpoint.bin: step [1-9][0-9]*, t = "
expect_in "bench --restart" "$work/out" "particle-steps/s"
check "bench --restart without scene" 2 "$exe" bench --backend cpu --restart "$work/long_out/checkpoint.bin"
expect_in "bench --restart without scene" "$work/err" "needs --scene"
check "bench --restart from garbage" 2 "$exe" bench --backend cpu --scene "$long" --restart "$long" --steps 1
expect_in "bench --restart from garbage" "$work/err" "not a usable checkpoint"

# A restart that adds a grid group: grid.xmf lists only the snapshots that hold /grid (the earlier run
# wrote none, and ParaView fails on an index entry whose /grid is missing); snapshots.xmf lists all.
check "run without a grid" 0 "$exe" run "$small" --out regrid_out --steps 3 --quiet
gridded="$work/gridded.cfg"
cat "$small" >"$gridded"
echo 'grid = { spacing = 0.02; };' >>"$gridded"
check "restart adding a grid" 0 "$exe" run "$gridded" --out regrid_out --restart "$work/regrid_out/checkpoint.bin" \
    --steps 3 --quiet
if [ -f "$work/regrid_out/grid.xmf" ]; then
    listed=$(grep -o 'snap_[0-9]*\.h5:/grid' "$work/regrid_out/grid.xmf" | sed 's/:.*//' | sort -u)
    [ -n "$listed" ] || { echo "FAIL restart adding a grid: grid.xmf lists no snapshot"; fails=$((fails + 1)); }
    (cd "$work/regrid_out" && "$h5check" --grid $listed) ||
        { echo "FAIL restart adding a grid: grid.xmf lists a snapshot without /grid"; fails=$((fails + 1)); }
    grep -q 'snap_000000\.h5' "$work/regrid_out/snapshots.xmf" ||
        { echo "FAIL restart adding a grid: snapshots.xmf lost the earlier snapshots"; fails=$((fails + 1)); }
else
    echo "FAIL restart adding a grid: no grid.xmf"
    fails=$((fails + 1))
fi

# Every snapshot an index lists is a whole, readable HDF5 snapshot and the index is complete.
index_readable() { # index_readable NAME DIR
    grep -q "</Xdmf>" "$2/snapshots.xmf" || { echo "FAIL $1: XDMF incomplete"; fails=$((fails + 1)); return; }
    local listed
    listed=$(grep -o 'snap_[0-9]*\.h5' "$2/snapshots.xmf" | sort -u)
    [ -n "$listed" ] || { echo "FAIL $1: the XDMF lists no snapshot"; fails=$((fails + 1)); return; }
    (cd "$2" && "$h5check" $listed) || { echo "FAIL $1: a listed snapshot is not readable"; fails=$((fails + 1)); }
}

# probes.csv holds whole rows only: every line has the header's number of fields and ends in a newline
rows_whole() { # rows_whole NAME FILE
    [ -s "$2" ] || { echo "FAIL $1: no $(basename "$2")"; fails=$((fails + 1)); return; }
    [ "$(tail -c 1 "$2" | od -An -c | tr -d ' ')" = '\n' ] || { echo "FAIL $1: last row cut short"; fails=$((fails + 1)); }
    awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$2" ||
        { echo "FAIL $1: a row of $(basename "$2") has the wrong number of fields"; fails=$((fails + 1)); }
}

# a run with probes: probes.csv has a header with units and a row per probe interval
probed="$work/probed.cfg"
cat "$small" >"$probed"
cat >>"$probed" <<'CFG'
probes = { interval = 0.005; front = "+x"; pressure = ( { name = "P1"; at = [0.05, 0.005]; } ); };
CFG
check "run with probes" 0 "$exe" run "$probed" --out probe_out --quiet
expect_in "run with probes" "$work/probe_out/probes.csv" "^time\[s\],step,P1\[Pa\],front\[m\],mass\[kg/m\]"
n=$(($(lines_of "$work/probe_out/probes.csv") - 1))
[ "$n" -eq 5 ] || { echo "FAIL run with probes: $n rows, expected 5 (t = 0, 0.005, ..., 0.02)"; fails=$((fails + 1)); }
rows_whole "run with probes" "$work/probe_out/probes.csv"

# an output directory that cannot be created: exit 1, one line naming it, nothing written
: >"$work/a_file"
check "output under a file" 1 "$exe" run "$small" --out "$work/a_file/sub" --quiet
expect_in "output under a file" "$work/err" "output directory '$work/a_file/sub': cannot create: Not a directory"
[ "$(lines_of "$work/err")" -eq 1 ] || { echo "FAIL output under a file: more than one line on stderr"; fails=$((fails + 1)); }
# probes.csv that cannot be written: the run stops with its name, the snapshot before stays readable
mkdir -p "$work/csv_blocked/probes.csv"
check "probes.csv not writable" 1 "$exe" run "$probed" --out csv_blocked --quiet
expect_in "probes.csv not writable" "$work/err" "cannot write '.*probes.csv'"
index_readable "probes.csv not writable" "$work/csv_blocked"

# A full disk, made by a file size limit (ulimit -f, as a user can; sluice ignores SIGXFSZ so the write
# fails with EFBIG like ENOSPC): snapshots are 16 KiB and fit under 20 KiB, the index grows by about
# 0.8 KiB a snapshot and crosses the limit after some 25. The run stops with exit 1 and one line
# naming the file; every snapshot the index lists stays readable, no temporary file is left.
full="$work/full.cfg"
cat >"$full" <<'CFG'
simulation = { dimension = 2; end_time = 0.5; };
numerics = { spacing = 0.02; };
geometry = ( { type = "tank"; min = [0.0, 0.0]; max = [0.2, 0.2]; },
             { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );
output = { directory = "full_out"; interval = 0.005; fields = []; checkpoint_every = 0; };
probes = { interval = 0.005; front = "+x"; };
CFG
check "file size limit" 1 bash -c "ulimit -f 20 && exec \"\$0\" run \"\$1\" --quiet" "$exe" "$full"
expect_in "file size limit" "$work/err" "sluice: cannot write 'full_out/snapshots.xmf': File too large"
[ "$(lines_of "$work/err")" -eq 1 ] || { echo "FAIL file size limit: more than one line on stderr"; fails=$((fails + 1)); }
listed=$(grep -c '<Grid Name="snap_' "$work/full_out/snapshots.xmf")
[ "$listed" -ge 10 ] || { echo "FAIL file size limit: only $listed snapshots listed before the failure"; fails=$((fails + 1)); }
index_readable "file size limit" "$work/full_out"
rows_whole "file size limit" "$work/full_out/probes.csv"
ls "$work"/full_out/*.tmp >/dev/null 2>&1 && { echo "FAIL file size limit: temporary files left"; fails=$((fails + 1)); }

# kill -9: every snapshot the XDMF lists exists and the XDMF itself is complete
cat "$long" >"$work/long_probed.cfg"
echo 'probes = { interval = 0.001; front = "+x"; };' >>"$work/long_probed.cfg"
long="$work/long_probed.cfg"
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
index_readable "kill -9" "$work/kill_out"
rows_whole "kill -9" "$work/kill_out/probes.csv"
echo "ok   kill -9"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
