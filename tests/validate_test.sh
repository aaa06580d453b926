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
# a scheme it does not know is refused before anything runs
/usr/bin/python3 "$src/tools/validate" "$exe" "$work/bad" --schemes sph >"$work/log" 2>&1 &&
    { echo "FAIL --schemes sph accepted"; fails=$((fails + 1)); }
grep -q "unknown sph" "$work/log" || { echo "FAIL no message for an unknown scheme"; fails=$((fails + 1)); }
echo "$fails failure(s)"
[ "$fails" -eq 0 ]
