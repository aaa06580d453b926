#!/usr/bin/env bash
# validate_test.sh: tools/validate at a coarse size: the Lobovsky et al. (2014) dam break at H/dp = 20,
# semi-implicit MPS, to t* = 3 (past the first impact on the downstream wall). It checks that the tool
# runs and writes its table and figure, and that sensor 1 reads a finite positive peak; not the
# agreement with the experiment (that needs the resolutions of docs/validation.md). MPS because it is
# the scheme whose sensor 1 is wet at this size: WCSPH's surge reaches the wall only after t* = 3 at
# H/dp = 20 (its front lags, docs/validation.md), and its sensor 1, 3 mm above the floor, samples
# h = 2 dp off the wall, where the kernel sum stays under the wet threshold at coarse spacings.
# usage: validate_test.sh SLUICE_EXE SOURCE_DIR
set -u
exe=$1
src=$2
work=$(mktemp -d /tmp/sluice_validate_XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/out" --backend cpu --resolutions 20 \
    --schemes mps --tstar-end 3.0 >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate:"; cat "$work/log"; exit 1; }
cat "$work/log"
table="$work/out/lobovsky_table.md"
[ -s "$table" ] || { echo "FAIL no table $table"; fails=$((fails + 1)); }
png="$work/out/lobovsky_mps.png"
[ "$(head -c 4 "$png" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] ||
    { echo "FAIL $png is not a PNG file"; fails=$((fails + 1)); }
row=$(grep '^| mps | 20 |' "$table")
[ -n "$row" ] || { echo "FAIL no row for mps at H/dp = 20"; fails=$((fails + 1)); }
peak=$(printf '%s\n' "$row" | awk -F'|' '{ gsub(/ /, "", $5); print $5 }')
awk -v p="$peak" 'BEGIN { exit !(p ~ /^[0-9]+(\.[0-9]+)?$/ && p + 0 > 0) }' ||
    { echo "FAIL sensor-1 peak '$peak' is not a finite positive number"; fails=$((fails + 1)); }
[ -s "$work/out/mps_20/probes.csv" ] || { echo "FAIL no probes.csv"; fails=$((fails + 1)); }
# sensor 1's noise after the impact (t* 2.7-3.0 here): a row-to-row RMS and a mean, both numbers
noise=$(printf '%s\n' "$row" | awk -F'|' '{ sub(/^ +/, "", $11); sub(/ +$/, "", $11); print $11 }')
printf '%s\n' "$noise" | grep -qE '^[0-9]+\.[0-9]{2} \(mean -?[0-9]+\.[0-9]{2}\)$' ||
    { echo "FAIL sensor 1's noise cell '$noise' is not 'RMS (mean M)'"; fails=$((fails + 1)); }
# --repeats 2 with --reuse: the first run kept, a second made into mps_20_r2; on the CPU the two are
# the same bits, so the spread is one number
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/out" --backend cpu --resolutions 20 \
    --schemes mps --tstar-end 3.0 --reuse --repeats 2 >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate --repeats 2:"; cat "$work/log"; fails=$((fails + 1)); }
grep -q "mps_20: reused" "$work/log" || { echo "FAIL the first run was not reused"; fails=$((fails + 1)); }
[ -s "$work/out/mps_20_r2/probes.csv" ] || { echo "FAIL no second run"; fails=$((fails + 1)); }
row=$(grep '^| mps | 20 |' "$table")
printf '%s\n' "$row" | grep -qE "^\| mps \| 20 \| 15 \| $peak \(2 runs: $peak-$peak, median $peak; in the band in [02] of 2\) \|" ||
    { echo "FAIL the row's spread over 2 runs: $row"; fails=$((fails + 1)); }
# a scheme it does not know is refused before anything runs
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/bad" --schemes sph >"$work/log" 2>&1 &&
    { echo "FAIL --schemes sph accepted"; fails=$((fails + 1)); }
grep -q "unknown sph" "$work/log" || { echo "FAIL no message for an unknown scheme"; fails=$((fails + 1)); }

# SPHERIC Test 2 (--cases spheric). (1) The scene variants of all three schemes pass `sluice check`.
# (2) The analysis, fed the experiment's own record as a run's probes (interpolated to 1 ms): P1's
# peak must come out as the experiment's (ratio 1.00; the interpolation moves it by < 0.1 %), P1-P4
# read throughout contact (both measures), P5 blanked for 0.1 s inside its contact must read less than throughout,
# P6-P8 untouched throughout, and a level put above the tank must be flagged. (3) A real run at
# dp = 0.08 m (the box two particles tall, ~6,000 particles) to t = 0.5 s, WCSPH with DBC walls:
# it must finish and the reservoir gauge H4 read its water (0.55 m at the start, above 0.4 m at
# 0.5 s in the experiment) at 0.4..0.6 m; not the agreement (that needs the spacings of
# docs/validation.md).
sph="$work/sph"
/usr/bin/python3 "$src/tools/validate" "$exe" "$sph" --cases spheric --spacings 0.0183333 \
    --schemes wcsph-dbc,wcsph-mdbc,mps --t-end 2.0 --report >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate --cases spheric --report:"; cat "$work/log"; fails=$((fails + 1)); }
grep -q 'spheric experiment: P1 first-impact peak 11.24 kPa at t = 0.415 s' "$work/log" ||
    { echo "FAIL the experiment's P1 peak is not 11.24 kPa at 0.415 s"; cat "$work/log"; fails=$((fails + 1)); }
for s in wcsph-dbc wcsph-mdbc mps; do
    "$exe" check "$sph/spheric_${s}_18.3mm.cfg" >"$work/check.log" 2>&1 ||
        { echo "FAIL sluice check spheric_${s}_18.3mm.cfg:"; cat "$work/check.log"; fails=$((fails + 1)); }
done
run="$sph/spheric_wcsph-dbc_18.3mm"
mkdir -p "$run"
/usr/bin/python3 - "$src/tests/data" "$run/probes.csv" <<'PY' || { echo "FAIL making synthetic probes"; fails=$((fails + 1)); }
import sys
import numpy as np
data, out = sys.argv[1], sys.argv[2]
def table(path):
    with open(path) as f:
        return np.genfromtxt([ln for ln in f if not ln.startswith("#")], delimiter=",", names=True)
pe = table(f"{data}/spheric2_kleefsman2005_pressure.csv")
le = table(f"{data}/spheric2_kleefsman2005_levels.csv")
t = np.round(np.arange(0.0, 2.0005, 0.001), 6)
cols = {"time[s]": t}
for k in range(1, 9):
    cols[f"P{k}[Pa]"] = np.interp(t, pe["t_s"], pe[f"P{k}_Pa"])
cols["P5[Pa]"][(t >= 1.5) & (t < 1.6)] = np.nan      # dry for 0.1 s while the experiment's is wet
for k in range(1, 5):
    cols[f"H{k}[m]"] = np.interp(t, le["t_s"], le[f"H{k}_m"])
cols["H3[m]"][1000] = 1.2                              # a level above the 1.0 m tank
with open(out, "w") as f:
    f.write(",".join(cols) + "\n")
    for i in range(len(t)):
        f.write(",".join("" if np.isnan(c[i]) else f"{c[i]:.9g}" for c in cols.values()) + "\n")
PY
echo "0 1.0" >"$run.time"
cp "$sph/spheric_wcsph-dbc_18.3mm.cfg" "$run.cfg.ran"
/usr/bin/python3 "$src/tools/validate" "$exe" "$sph" --cases spheric --spacings 0.0183333 \
    --schemes wcsph-dbc --t-end 2.0 --report >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate --report on synthetic probes:"; cat "$work/log"; fails=$((fails + 1)); }
cat "$work/log"
row=$(grep '^| wcsph-dbc | 18.3 | [0-9]' "$work/log" | head -1)
case "$row" in
    *"| 1.00 ok |"*) ;;
    *) echo "FAIL P1 peak of the experiment's own record is not 1.00 of it: '$row'"; fails=$((fails + 1)) ;;
esac
case "$row" in
    *"| 7 of 8: P1, P2, P3, P4, P6, P7, P8 | 7 of 8: all but P5 |"*) ;;
    *) echo "FAIL contact summaries are not '7 of 8' without P5: '$row'"; fails=$((fails + 1)) ;;
esac
case "$row" in
    *"0.20 above"*) ;;
    *) echo "FAIL the 1.2 m level is not flagged 0.20 above the tank: '$row'"; fails=$((fails + 1)) ;;
esac
crow=$(grep '^| wcsph-dbc | 18.3 | [0-9.]* / [0-9.]* |' "$work/log" | tail -1)
p5=$(printf '%s\n' "$crow" | awk -F'|' '{ gsub(/ /, "", $8); print $8 }')
# both fractions (all of the contact; from the run's arrival on, here the experiment's own) under 1
awk -v p="$p5" 'BEGIN { n = split(p, f, "/"); exit !(n == 2 && f[1] > 0.8 && f[1] < 1.0 && f[2] > 0.8 && f[2] < 1.0) }' ||
    { echo "FAIL P5 contact fractions '$p5' (0.1 s blanked of its 0.9 s contact) not both in (0.8, 1)"; fails=$((fails + 1)); }
for f in spheric_wcsph-dbc.png spheric_convergence.png; do
    [ "$(head -c 4 "$sph/$f" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ] ||
        { echo "FAIL $sph/$f is not a PNG file"; fails=$((fails + 1)); }
done
real="$work/sphreal"
/usr/bin/python3 "$src/tools/validate" "$exe" "$real" --cases spheric --spacings 0.08 --schemes wcsph-dbc \
    --t-end 0.5 --backend cpu >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate spheric at dp = 0.08:"; cat "$work/log"; fails=$((fails + 1)); }
cat "$work/log"
h4=$(grep '^| wcsph-dbc | 80 |' "$work/log" | head -1 | awk -F'|' '{ n = split($9, a, "/"); gsub(/ /, "", a[n]); print a[n] }')
awk -v h="$h4" 'BEGIN { exit !(h ~ /^[0-9.]+$/ && h >= 0.4 && h <= 0.6) }' ||
    { echo "FAIL H4's highest level '$h4' at dp = 0.08 not in 0.4..0.6 m"; fails=$((fails + 1)); }
# --repeats 2 with --reuse: a second run into its _r2; on the CPU the two are the same bits, so both
# count alike (P1 reads no peak at this spacing; the sensors read alike in both)
/usr/bin/python3 "$src/tools/validate" "$exe" "$real" --cases spheric --spacings 0.08 --schemes wcsph-dbc \
    --t-end 0.5 --backend cpu --reuse --repeats 2 >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate spheric --repeats 2:"; cat "$work/log"; fails=$((fails + 1)); }
[ -s "$real/spheric_wcsph-dbc_80mm_r2/probes.csv" ] || { echo "FAIL no second spheric run"; fails=$((fails + 1)); }
grep '^| wcsph-dbc | 80 |' "$work/log" | head -1 |
    grep -qE '\(2 runs: P1 reads no peak in any; every sensor from its arrival in [02] of 2\)' ||
    { echo "FAIL the spheric row's note over 2 runs: $(grep '^| wcsph-dbc | 80 |' "$work/log" | head -1)"
      fails=$((fails + 1)); }
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/bad" --cases spheric --spacings 0.2 >"$work/log" 2>&1 &&
    { echo "FAIL --spacings 0.2 accepted"; fails=$((fails + 1)); }
grep -q "0.005..0.1 m" "$work/log" || { echo "FAIL no message for a spacing out of range"; fails=$((fails + 1)); }
# --cfl: the semi-implicit time-step study's variants carry the CFL number asked for (the scenes' 0.2
# otherwise) and still pass `sluice check`; a number out of range is refused with its range
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/cfl" --cases lobovsky,spheric --resolutions 40 \
    --spacings 0.0275 --schemes mps --cfl 0.6 --report >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate --cfl 0.6 --report:"; cat "$work/log"; fails=$((fails + 1)); }
for v in "$work/cfl/mps_40.cfg" "$work/cfl/spheric_mps_27.5mm.cfg"; do
    [ "$(grep -c '^  cfl = 0.6;' "$v")" = 1 ] && ! grep -q '^  cfl = 0.2;' "$v" ||
        { echo "FAIL $v does not set cfl = 0.6:"; grep -n cfl "$v"; fails=$((fails + 1)); }
    "$exe" check "$v" >"$work/check.log" 2>&1 ||
        { echo "FAIL sluice check $v:"; cat "$work/check.log"; fails=$((fails + 1)); }
done
grep -q '^  cfl = 0.2;' "$sph/spheric_mps_18.3mm.cfg" ||
    { echo "FAIL without --cfl the variant does not keep the scene's cfl = 0.2"; fails=$((fails + 1)); }
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/bad" --cases spheric --cfl 2 >"$work/log" 2>&1 &&
    { echo "FAIL --cfl 2 accepted"; fails=$((fails + 1)); }
grep -q "outside 0.05..1.0" "$work/log" || { echo "FAIL no message for a CFL number out of range"; fails=$((fails + 1)); }
# mps-ds: dynamic stabilisation from 0.9 spacings in both cases' variants; --collision-distance sets
# the distance of any MPS variant (and leaves the WCSPH ones alone); all pass `sluice check`
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/ds" --cases lobovsky,spheric --resolutions 40 \
    --spacings 0.0275 --schemes mps-ds,mps,wcsph-dbc --report >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate --schemes mps-ds,mps,wcsph-dbc --report:"; cat "$work/log"; fails=$((fails + 1)); }
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/ds7" --cases lobovsky,spheric --resolutions 40 \
    --spacings 0.0275 --schemes mps-ds,mps,wcsph-dbc --collision-distance 0.7 --report >"$work/log" 2>&1 ||
    { echo "FAIL tools/validate --collision-distance 0.7 --report:"; cat "$work/log"; fails=$((fails + 1)); }
expect_collision() { # CFG DISTANCE MODEL(dynamic|none)
    grep -q "collision_distance = $2;" "$1" && [ "$(grep -c 'collision_distance' "$1")" = 1 ] ||
        { echo "FAIL $1 does not set collision_distance = $2:"; grep -n collision "$1"; fails=$((fails + 1)); }
    if [ "$3" = dynamic ]; then grep -q 'collision_model = "dynamic";' "$1"; else ! grep -q collision_model "$1"; fi ||
        { echo "FAIL $1: collision_model not as $3:"; grep -n collision "$1"; fails=$((fails + 1)); }
    "$exe" check "$1" >"$work/check.log" 2>&1 || { echo "FAIL sluice check $1:"; cat "$work/check.log"; fails=$((fails + 1)); }
}
for c in mps-ds_40 spheric_mps-ds_27.5mm; do expect_collision "$work/ds/$c.cfg" 0.9 dynamic; expect_collision "$work/ds7/$c.cfg" 0.7 dynamic; done
for c in mps_40 spheric_mps_27.5mm; do expect_collision "$work/ds/$c.cfg" 0.8 none; expect_collision "$work/ds7/$c.cfg" 0.7 none; done
for c in wcsph-dbc_40 spheric_wcsph-dbc_27.5mm; do
    ! grep -q collision "$work/ds7/$c.cfg" || { echo "FAIL --collision-distance edits the WCSPH variant $c"; fails=$((fails + 1)); }
done
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/bad" --collision-distance 1.5 >"$work/log" 2>&1 &&
    { echo "FAIL --collision-distance 1.5 accepted"; fails=$((fails + 1)); }
grep -q "outside 0.1..1.0" "$work/log" || { echo "FAIL no message for a collision distance out of range"; fails=$((fails + 1)); }
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
