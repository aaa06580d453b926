#!/usr/bin/env bash
# report_test.sh: tools/sluice-report on a short 2D dam break with every kind of probe: it writes the
# figures as PNG files and compares the front with Martin & Moyce.
# usage: report_test.sh SLUICE_EXE SOURCE_DIR
set -u
exe=$1
src=$2
work=$(mktemp -d /tmp/sluice_report_XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
# The column of scenes/dam_break_2d.cfg at dp = a/10, to T = 1.2 (0.065 s): three points of the table.
cat >"$work/s.cfg" <<'CFG'
simulation = { dimension = 2; end_time = 0.065; };
fluid = { sound_speed_coef = 20.0; };
numerics = { spacing = 0.005715; alpha = 0.1; };
geometry = ( { type = "tank"; min = [0.0, 0.0]; max = [0.4, 0.15]; },
             { type = "fluid"; min = [0.0, 0.0]; max = [0.05715, 0.1143]; } );
output = { interval = 0.005; };
probes = { interval = 0.001; front = "+x"; gauges = ( { name = "H"; at = 0.01; } );
           pressure = ( { name = "P"; at = [0.0, 0.005]; } ); };
CFG
"$exe" run "$work/s.cfg" --out "$work/out" --quiet >/dev/null || { echo "FAIL the run"; exit 1; }
/usr/bin/python3 "$src/tools/sluice-report" "$work/out" --png "$work/png" >"$work/log" 2>&1 ||
    { echo "FAIL sluice-report:"; cat "$work/log"; exit 1; }
cat "$work/log"
for f in front pressure levels energy; do
    [ "$(head -c 4 "$work/png/$f.png" | od -An -c | tr -d ' ')" = '211PNG' ] ||
        { echo "FAIL $f.png is not a PNG file"; fails=$((fails + 1)); }
done
[ ! -e "$work/png/solver.png" ] || { echo "FAIL solver.png for a WCSPH run"; fails=$((fails + 1)); }
# the front over T <= 1.2 stays within 0.15 of the table (a coarse run; the shipped scene is 0.05)
rms=$(sed -n 's/^surge front: RMS |Z - Z_exp| = \([0-9.]*\) .*/\1/p' "$work/log")
[ -n "$rms" ] && awk -v r="$rms" 'BEGIN { exit !(r < 0.15) }' ||
    { echo "FAIL front RMS '$rms' (expected < 0.15)"; fails=$((fails + 1)); }
# probes without a snapshot: 2D is assumed and said; --dimension 3 plots the front in metres
mkdir "$work/only"
cp "$work/out/probes.csv" "$work/only/"
/usr/bin/python3 "$src/tools/sluice-report" "$work/only" >"$work/log" 2>&1 ||
    { echo "FAIL sluice-report on probes.csv alone:"; cat "$work/log"; fails=$((fails + 1)); }
grep -q "taking the run as 2D" "$work/log" || { echo "FAIL no note that 2D was assumed"; fails=$((fails + 1)); }
/usr/bin/python3 "$src/tools/sluice-report" "$work/only" --dimension 3 >"$work/log" 2>&1 ||
    { echo "FAIL sluice-report --dimension 3:"; cat "$work/log"; fails=$((fails + 1)); }
grep -q "surge front: RMS" "$work/log" && { echo "FAIL a 3D run compared with Martin & Moyce"; fails=$((fails + 1)); }
[ -s "$work/only/front.png" ] || { echo "FAIL no front.png with --dimension 3"; fails=$((fails + 1)); }
# no probes: a clear refusal
mkdir "$work/empty"
/usr/bin/python3 "$src/tools/sluice-report" "$work/empty" >"$work/log" 2>&1 &&
    { echo "FAIL sluice-report accepted a directory without probes.csv"; fails=$((fails + 1)); }
grep -q "probes.csv: no such file" "$work/log" || { echo "FAIL no message for a missing probes.csv"; fails=$((fails + 1)); }
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
