#!/bin/bash
# tools/gputrace: the CUPTI injection library compiles against the CUDA toolkit's CUPTI (where the
# toolkit is installed; said when not), and `summary` reads a trace made here with known numbers: the
# steps cut at the marker kernel, the busy and idle time a step, the gaps by size, the kernels by name.
# usage: gputrace_test.sh SOURCE_DIR
set -u
cd "$1" || exit 1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source tests/check.sh # check NAME COMMAND..., $fails
cuda=""
for d in /usr/local/cuda /usr/local/cuda-13.0 /usr/lib/cuda; do
    [ -f "$d/include/cupti.h" ] && cuda=$d && break
done
if [ -n "$cuda" ]; then
    check "gputrace.c compiles and links against $cuda's CUPTI" \
        cc -shared -fPIC -O2 -Wall -Wextra -Werror tools/gputrace/gputrace.c -I"$cuda/include" -L"$cuda/lib64" \
        -L"$cuda/lib" -lcupti -o "$out/gputrace.so"
else
    echo "note: no CUDA toolkit with CUPTI here (cupti.h): the library was not compiled; the summary is tested"
fi
# 12 steps of 100 us: a marker kernel of 5 us, kernel A (20 us) after a 5 us gap, kernel B (30 us) after
# a 10 us gap, then 30 us idle: busy 55 us, idle 45 us a step; gaps 5 us (5-10 bin), 10 and 30 us (10-50)
/usr/bin/python3 - "$out/trace.csv" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for k in range(12):
        t = 1_000_000 + k * 100_000
        f.write(f"K,{t},{t + 5000},0,marker_kernel\n")
        f.write(f"K,{t + 10000},{t + 30000},0,_Z7kernelAv\n")
        f.write(f"K,{t + 40000},{t + 70000},7,kernel_b, with a comma\n")
PY
tools/gputrace/summary "$out/trace.csv" --steps 12 --skip 2 >"$out/s.txt" 2>&1
check "summary runs (steps found from the count)" grep -q "^marker: marker_kernel" "$out/s.txt"
check "9 whole steps after 2 of warm-up, 100 us each" grep -q "(9 steps): 100.0 us a step" "$out/s.txt"
check "busy 55 us, idle 45 us a step" grep -q "busy 55.0 us (55.0%), idle 45.0 us" "$out/s.txt"
check "the 5 us gap in its bin" grep -qE "gaps +5-10 us: +1.0 a step, +5.0 us" "$out/s.txt"
check "the 10 and 30 us gaps in theirs" grep -qE "gaps +10-50 us: +2.0 a step, +40.0 us" "$out/s.txt"
check "kernel B first by time, its name whole" grep -qE "^ +30.0 +1.0 +30.00  kernel_b, with a comma" "$out/s.txt"
if command -v c++filt >/dev/null; then
    check "names demangled" grep -qE "^ +20.0 +1.0 +20.00  kernelA\(\)" "$out/s.txt"
fi
tools/gputrace/summary "$out/trace.csv" --marker marker_kernel --skip 20 >"$out/few.txt" 2>&1
rc=$?
check "too few steps for the warm-up: refused (exit $rc), saying so" \
    bash -c "[ $rc -ne 0 ] && grep -q 'too few for --skip 20' '$out/few.txt'"
if [ $fails -ne 0 ]; then
    cat "$out/s.txt"
    exit 1
fi
exit 0
