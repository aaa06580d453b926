#!/bin/bash
# tools/bench-scenes: the scenes docs/performance.md names are written, the small ones pass
# `sluice check` with the method and CFL they are meant to have, and the MPI scaling scenes (WCSPH
# s*, w20_*; MPS m20_*) carry their spacings and edits (checking those would build tens of millions
# of particles).
# usage: bench_scenes_test.sh SLUICE SOURCE_DIR
set -u
exe=$1
cd "$2" || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source tests/check.sh # check NAME COMMAND..., $fails
tools/bench-scenes "$out" >/dev/null || { echo "FAIL tools/bench-scenes exited $?"; exit 1; }
for f in sph6_wcsph sph6_mps_c4 sph6_mps_ds; do
    "$exe" check "$out/$f.cfg" >"$out/$f.check" 2>&1
    check "$f.cfg passes sluice check" test $? -eq 0
done
check "sph6_mps_c4 runs semi-implicit MPS" grep -q "^method *mps (semi-implicit MPS" "$out/sph6_mps_c4.check"
check "sph6_mps_c4 at CFL 0.4" grep -q "(CFL 0.4)" "$out/sph6_mps_c4.check"
check "sph6_mps_c4 has the mps block" grep -q '^mps = { operators = "mps";' "$out/sph6_mps_c4.cfg"
check "sph6_mps_ds is sph6_mps_c4 with the dynamic law from 0.9 l0" bash -c \
    "diff $out/sph6_mps_c4.cfg $out/sph6_mps_ds.cfg | grep -c '^[<>]' | grep -qx 2 && grep -q 'collision_distance = 0.9; collision_model = \"dynamic\";' $out/sph6_mps_ds.cfg"
check "sph6_wcsph snapshots every 1 s" grep -q "every 1 s" "$out/sph6_wcsph.check"
for pair in 1:0.00354 2:0.00281 4:0.00223; do
    check "s${pair%%:*}.cfg at spacing ${pair#*:}" \
        grep -q "^  spacing = ${pair#*:}; " "$out/s${pair%%:*}.cfg"
    check "s${pair%%:*}.cfg writes positions and ids only, no checkpoints" \
        grep -q '^  fields = \["position", "id"\]; checkpoint_every = 0;' "$out/s${pair%%:*}.cfg"
done
for pair in 1:0.003418 2:0.002683 4:0.002113; do
    check "w20_${pair%%:*}.cfg at spacing ${pair#*:}" grep -q "^  spacing = ${pair#*:}; " "$out/w20_${pair%%:*}.cfg"
done
for pair in 1:0.00338 2:0.00266 4:0.00211; do
    f=$out/m20_${pair%%:*}.cfg
    check "m20_${pair%%:*}.cfg at spacing ${pair#*:}" grep -q "^  spacing = ${pair#*:};" "$f"
    check "m20_${pair%%:*}.cfg runs semi-implicit MPS at CFL 0.4, no gridded output" \
        bash -c "grep -q 'method = \"mps\";' $f && grep -q '^  cfl = 0.4;' $f && grep -q '^mps = { operators' $f && ! grep -q '^grid = ' $f"
done
[ "$fails" -eq 0 ] || { echo "$fails failed"; exit 1; }
