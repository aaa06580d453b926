#!/usr/bin/env bash
# mpi_test.sh: runs on several MPI ranks against one rank (label mpi): the same particles within a
# stated tolerance, the same files, restarts across rank counts, errors that stop every rank.
# usage: mpi_test.sh CASE SLUICE_EXE SNAPSHOT_COMPARE_EXE MPIEXEC
#   CASE: dam_break_2d | dam_break_3d | mdbc | emps | mps | mps_jacobi | floating | probes | restart | errors |
#   viewer (a build with the viewer) | cuda (label gpu; 77, skipped, without a CUDA device)
#
# Tolerances. On several ranks every particle sees the same neighbours with the same values; only
# the order of the sums over neighbours can differ, where a particle that moved to another rank was
# appended behind the particles of its new cell (on one rank the stable sort keeps the order they
# had), and, with the cells' skin (numerics.cell_skin, off by default), where the cells are wider
# than one rank's (2D: 4.7e-7 dp after 20 steps). Without the skin, before any particle has migrated
# the runs agree bit for bit; after that the differences
# start at one rounding of a float position (7.5e-6 dp at x = 0.4 m with dp = 4 mm) and grow with the
# flow's sensitivity. Measured (2D, float, np 2/3/4): 0 after 20 and 500 steps, <= 1.7e-5 dp after
# 1000, <= 6.3e-5 dp after 2000, <= 4.1e-4 dp after 4000. Bounds: 1e-5 dp after 20 steps and 1e-3 dp
# after about 2000 (t = 0.08 s; 16x the largest measured); a ghost band half an interaction radius
# short (a real decomposition bug, tried) gives 5e-4 dp after 20 steps and 0.23 dp after 2000.
# Explicit MPS grows the differences faster (its pressure follows the number density's every
# wobble): 0 after 20 steps, <= 9.3e-6 dp after 400 and <= 4.1e-4 dp after 800 (np 2/3). Bounds:
# 1e-5 dp after 20 steps, 2e-4 dp after 400 (21x). Its scene takes re_laplacian = re_density, so the
# ghost band is one density radius wide and the ghosts' pressure must come from their owners
# (domain_refresh_halo): without the refreshes the positions differ by 1e-3 dp after 20 steps.
# Semi-implicit MPS adds the pressure solve, which stops at a relative residual of 1e-6
# (mps.cg_tolerance), not at round-off: its dot products are summed in another order on several
# ranks and, with multigrid, the preconditioner is another (a block per rank, overlapping by the
# ghost band), so the pressures agree to about the residual, and the positions to what that moves.
# Measured (np 2/3, float): multigrid 1.9e-6 dp after 20 steps, <= 1.5e-5 dp at 0.05 s (1.9e-5
# with blocks that did not overlap); Jacobi 1.9e-6 dp and <= 1.9e-5 dp. The
# scale is the tolerance's own: on one rank, multigrid against Jacobi (both to 1e-6) differ by
# 1.9e-6 dp after 20 steps and 3.7e-5 dp at 0.05 s. Bounds: 1e-5 dp after 20 steps, 2e-4 dp at
# 0.05 s (5x the one-rank spread). Later the spread grows fast on one rank too (0.025 dp at 0.1 s,
# once a particle changes its surface class), so the runs stop at 0.05 s. Tried: without the
# refresh of each product's vector (cg_problem.share) 0.067 dp after 20 steps; without the ghosts'
# classes refreshed before the Poisson rows 0.02 dp at 0.05 s and Jacobi's iterations off by up to 8.
# Probes (case probes): every rank samples its own particles and the root adds up the ranks' sums
# (io/probes.c). Within 20 steps no particle migrates and the state is that of one rank bit for bit,
# so a row differs from one rank's only where a sum is added in another order: rank by rank instead
# of particle by particle, a relative change of at most (terms) x 2^-53, about 1e-13 for the few
# hundred terms of a sensor or a gauge's height, far below the 9 significant digits a float build
# writes (17 in a double build). Bound: 1e-7 of the column's largest magnitude (10 units of the
# ninth digit; a scale per column, so a pressure or energy that passes through 0 is not read
# relatively). Measured: 0 (the same digits in every field) in 2D and 3D. Reducing only the root's
# sums fails it by far (case probes says how).
set -u
case_=$1
exe=$2
compare=$3
mpiexec=$4
work=$(mktemp -d /tmp/sluice_mpi_XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0

# The cuts by particle count (parallel/mpi_domain.h): the default balance by measured work moves them
# when the ranks' timings say so, which differs from run to run, so comparisons at tolerance 0 and the
# count check below could not hold. The balance by work has its own case below (dam_break_2d).
export SLUICE_MPI_BALANCE=count

mpi_flags=()
if "$mpiexec" --version 2>&1 | grep -qi "open-?mpi\|OpenRTE"; then
    mpi_flags+=(--oversubscribe) # a 2-core machine runs 3 ranks
    [ "$(id -u)" = 0 ] && mpi_flags+=(--allow-run-as-root)
fi

# The CPU backend unless a case names another (a later --backend wins): on a machine with a GPU,
# `auto` would run these cases there, where 1 and 2 ranks are not bit-identical (the 3D case on
# 2 x H100: positions 8e-6 dp apart after 300 steps, so the time steps and the XDMF's times differed
# in their ninth digit, and the byte-for-byte XDMF comparison failed). The cuda case covers the GPU.
run1() { "$exe" run --backend cpu "$@" --quiet --threads 1 >/dev/null 2>"$work/err1" || { echo "FAIL one rank: $*"; cat "$work/err1"; exit 1; }; }
runN() { # runN NP ARGS...
    local np=$1
    shift
    "$mpiexec" "${mpi_flags[@]}" -np "$np" "$exe" run --backend cpu "$@" --quiet --threads 1 >/dev/null 2>"$work/errN" ||
        { echo "FAIL $np ranks: $*"; cat "$work/errN"; exit 1; }
}

agree() { # agree NAME DIR_A DIR_B TOL_DP: the last snapshots within TOL_DP, the same XDMF index
    local last
    last=$(basename "$(ls "$2"/snap_*.h5 | tail -1)")
    local line
    line=$("$compare" "$2/$last" "$3/$last" "$4")
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $1: $line"
        fails=$((fails + 1))
    else
        echo "ok   $1 ($last, bound $4 dp): $line"
    fi
    if ! cmp -s "$2/snapshots.xmf" "$3/snapshots.xmf"; then
        echo "FAIL $1: snapshots.xmf differs"
        diff "$2/snapshots.xmf" "$3/snapshots.xmf" | head -5
        fails=$((fails + 1))
    fi
}

# against_one NAME CFG NP TOL RUN_ARGS...: CFG on one rank (once for the same CFG and RUN_ARGS) and
# on NP ranks, then agree; the two directories are left in $one and $many
refused() { # refused NAME PATTERN COMMAND...: the command fails, does not hang, and says PATTERN on stderr
    local name=$1 pattern=$2
    shift 2
    timeout 60 "$@" >out 2>err
    local rc=$?
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || ! grep -q "$pattern" err; then
        echo "FAIL $name: exit status $rc (124: hung), stderr:"
        head -3 err
        fails=$((fails + 1))
    else
        echo "ok   $name: $(grep -m1 "$pattern" err)"
    fi
}

against_one() {
    local name=$1 cfg=$2 np=$3 tol=$4
    shift 4
    local tag
    tag=$(echo "$cfg $*" | tr -c 'a-zA-Z0-9\n' _)
    one=one_$tag
    many=np${np}_$tag
    [ -d "$one" ] || run1 "$cfg" --out "$one" "$@"
    runN "$np" "$cfg" --out "$many" "$@"
    agree "$name" "$one" "$many" "$tol"
}

cat >dam_break_2d.cfg <<'CFG'
simulation = { method = "wcsph"; dimension = 2; end_time = 1.0; };
fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; sound_speed_coef = 40.0; };
numerics = { spacing = 0.004; kernel = "wendland"; h_factor = 2.0; cfl = 0.2; ndiv = 2;
             integrator = "symplectic"; viscosity = "artificial"; alpha = 0.1; delta = 0.1; };
geometry = (
  { type = "tank"; min = [0.0, 0.0]; max = [0.4, 0.15]; layers = 3; },
  { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; }
);
output = { directory = "out"; interval = 0.02; checkpoint_every = 1;
           fields = ["position", "velocity", "pressure", "density", "type", "id"]; };
probes = { interval = 0.01; front = "+x"; energy = true; gauges = ( { name = "H"; at = 0.05; } );
           pressure = ( { name = "P"; at = [0.0, 0.01]; } ); };
CFG

cat >dam_break_3d.cfg <<'CFG'
simulation = { method = "wcsph"; dimension = 3; end_time = 1.0; };
fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, 0.0, -9.81]; sound_speed_coef = 40.0; };
numerics = { spacing = 0.01; kernel = "wendland"; h_factor = 1.5; cfl = 0.2; ndiv = 1;
             integrator = "symplectic"; viscosity = "artificial"; alpha = 0.1; delta = 0.1; };
geometry = (
  { type = "tank"; min = [0.0, 0.0, 0.0]; max = [0.4, 0.1, 0.15]; layers = 2; },
  { type = "fluid"; min = [0.0, 0.0, 0.0]; max = [0.1, 0.1, 0.1]; }
);
output = { directory = "out"; interval = 0.01; fields = ["position", "velocity", "pressure", "density", "type", "id"]; };
CFG

cat >emps.cfg <<'CFG'
simulation = { method = "emps"; dimension = 2; end_time = 1.0; };
fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };
numerics = { spacing = 0.004; cfl = 0.2; ndiv = 2; };
mps = { operators = "mps"; weight = "quadratic"; re_density = 2.1; re_laplacian = 2.1; surface_beta = 0.97;
        wall_pressure = "extrapolated"; };
geometry = (
  { type = "tank"; min = [0.0, 0.0]; max = [0.4, 0.15]; layers = 3; },
  { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; }
);
output = { directory = "out"; interval = 0.01; fields = ["position", "velocity", "pressure", "density", "type", "id"]; };
CFG

# a box floating in a tank, across the cut of 2 ranks: its force and torque are sums over both
cat >floating.cfg <<'CFG'
simulation = { method = "wcsph"; dimension = 2; end_time = 1.0; };
fluid = { density = 1000.0; gravity = [0.0, -9.81]; sound_speed_coef = 10.0; };
numerics = { spacing = 0.01; integrator = "symplectic"; viscosity = "artificial"; alpha = 0.1; delta = 0.1; };
geometry = (
  { type = "tank"; min = [0.0, 0.0]; max = [0.6, 0.3]; layers = 3; },
  { type = "fluid"; min = [0.0, 0.0]; max = [0.25, 0.15]; },
  { type = "fluid"; min = [0.35, 0.0]; max = [0.6, 0.15]; },
  { type = "fluid"; min = [0.25, 0.0]; max = [0.35, 0.1]; },
  { type = "obstacle"; min = [0.25, 0.1]; max = [0.35, 0.2]; layers = 3; floating = { density = 500.0; }; } );
output = { directory = "out"; interval = 0.05; fields = ["position", "velocity", "pressure", "density", "type", "id"]; };
CFG

# semi-implicit MPS: the numerics scenes/dam_break_2d_mps.cfg had until 2026-11-29 (Koshizuka's collisions
# from 0.8 l0; the case mps also runs the scene's dynamic stabilisation) on the small tank above; a probe row
# every step (an interval below the time step), each with that step's CG iterations
cat >mps.cfg <<'CFG'
simulation = { method = "mps"; dimension = 2; end_time = 1.0; };
fluid = { density = 1000.0; viscosity = 1.0e-6; gravity = [0.0, -9.81]; };
numerics = { spacing = 0.004; cfl = 0.2; ndiv = 2; };
mps = { operators = "mps"; weight = "quadratic"; re_density = 2.1; re_laplacian = 4.0; surface_beta = 0.97;
        collision_distance = 0.8; source = "mixed"; cg_tolerance = 1.0e-6; preconditioner = "multigrid"; };
geometry = (
  { type = "tank"; min = [0.0, 0.0]; max = [0.4, 0.15]; layers = 3; },
  { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; }
);
output = { directory = "out"; interval = 0.01; fields = ["position", "velocity", "pressure", "density", "type", "id"]; };
probes = { interval = 1.0e-5; front = "+x"; };
CFG

# iterations_agree NAME DIR_ONE DIR_MANY LOW HIGH SLACK: every step's CG iterations on several ranks
# (probes.csv, column cg_iterations, rows matched by step) within [LOW one - SLACK, HIGH one + SLACK]
iterations_agree() {
    local line
    line=$(awk -F, -v low="$4" -v high="$5" -v slack="$6" '
        FNR == 1 { for (c = 1; c <= NF; ++c) if ($c == "cg_iterations") col = c; next }
        NR == FNR { one[$2] = $col; next }
        ($2 in one) && one[$2] > 0 {
            n++; a = one[$2]; b = $col; r = b / a
            if (n == 1 || r < rmin) rmin = r
            if (n == 1 || r > rmax) rmax = r
            if (b < low * a - slack || b > high * a + slack) { bad++; if (!first) first = "step " $2 ": " a " against " b }
        }
        END { printf "%d steps, %d out of bounds%s; iterations on several ranks / one: %.2f to %.2f\n",
                     n, bad, first ? " (" first ")" : "", rmin, rmax; exit !(n > 0 && bad == 0) }' \
        "$2/probes.csv" "$3/probes.csv")
    if [ $? -ne 0 ]; then
        echo "FAIL $1: $line"
        fails=$((fails + 1))
    else
        echo "ok   $1 (within [$4 x - $6, $5 x + $6]): $line"
    fi
}

# probes_agree NAME CSV_ONE CSV_MANY TOL: the same header and rows; in every column each value
# within TOL x the column's largest magnitude (both files), a dry sensor or gauge (empty) in both
probes_agree() {
    local line
    line=$(awk -F, -v tol="$4" '
        function mag(v) { return v < 0 ? -v : v }
        FNR == 1 { if (NR == 1) head = $0; else if ($0 != head) { print "the headers differ"; bad = 1; exit 1 } next }
        NR == FNR { rows1++; for (c = 1; c <= NF; ++c) { a[rows1, c] = $c; if ($c != "" && mag($c) > scale[c]) scale[c] = mag($c) } next }
        { rows2++; cols = NF; for (c = 1; c <= NF; ++c) { b[rows2, c] = $c; if ($c != "" && mag($c) > scale[c]) scale[c] = mag($c) } }
        END {
            if (bad) exit 1
            if (rows1 != rows2 || rows1 == 0) { printf "%d rows against %d\n", rows1, rows2; exit 1 }
            split(head, name, ",")
            for (r = 1; r <= rows1; ++r)
                for (c = 1; c <= cols; ++c) {
                    x = a[r, c]; y = b[r, c]
                    if ((x == "") != (y == "")) { if (!first) first = name[c] " row " r ": \"" x "\" against \"" y "\""; off++; continue }
                    if (x == "") { dry++; continue }
                    d = scale[c] > 0 ? mag(x - y) / scale[c] : 0
                    if (d > worst) { worst = d; where = name[c] " row " r }
                    if (d > tol) { if (!first) first = name[c] " row " r ": " x " against " y; off++ }
                }
            printf "%d rows of %d columns, %d dry fields; largest difference / column scale %.3g%s; %d out of bounds%s\n",
                   rows1, cols, dry, worst, (worst > 0 ? " (" where ")" : ""), off, (off ? " (first: " first ")" : "")
            exit off > 0
        }' "$2" "$3")
    if [ $? -ne 0 ]; then
        echo "FAIL $1: $line"
        fails=$((fails + 1))
    else
        echo "ok   $1 (bound $4 of each column's scale): $line"
    fi
}

case "$case_" in
dam_break_2d)
    # 20 steps; then to t = 0.08 s, an output time (2021 steps): a run stopped by a step count
    # ends at a time that depends on the last digits of every step before
    against_one "2D, 2 ranks, 20 steps, the same bits (no particle has migrated)" dam_break_2d.cfg 2 0 --steps 20
    # a snapshot of positions and ids only: the root gathers only what it writes (engine.c's
    # snapshot_fields), the same positions as one rank's
    sed 's/fields = \[.*\]/fields = ["position", "id"]/' dam_break_2d.cfg >positions.cfg
    against_one "2D, 2 ranks, snapshots of positions and ids only, 20 steps" positions.cfg 2 1e-5 --steps 20
    # without the cells' skin (numerics.cell_skin, off by default) the ranks' cells are one rank's,
    # and before any particle migrates every sum runs in the same order: the same bits (above). With it the
    # corrector reuses the step's cells: one build a step, which the closing line counts; the cells
    # are wider than one rank's, so the sums run in another order (4.7e-7 dp after 20 steps).
    sed 's/delta = 0.1; };/delta = 0.1; cell_skin = 0.1; };/' dam_break_2d.cfg >skin.cfg
    against_one "2D, 2 ranks with the cells' skin, 20 steps" skin.cfg 2 1e-5 --steps 20
    "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run skin.cfg --backend cpu --out skin --steps 40 --threads 1 \
        >/dev/null 2>skin.err || { echo "FAIL 2 ranks, 40 steps"; cat skin.err; exit 1; }
    saved=$(sed -n 's/.*; \([0-9]*\) cell builds saved by the skin.*/\1/p' skin.err | tail -1)
    if [ "${saved:-0}" -lt 30 ]; then
        echo "FAIL the cells' skin saved ${saved:-0} of 40 cell builds (expected one a step but where the fluid ran too far)"
        fails=$((fails + 1))
    else
        echo "ok   the cells' skin saved $saved of 40 cell builds"
    fi
    against_one "2D, 3 ranks, to 0.08 s" dam_break_2d.cfg 3 1e-3 --until 0.08
    against_one "2D, 2 ranks, to 0.08 s" dam_break_2d.cfg 2 1e-3 --until 0.08
    # probes sampled from the whole state on rank 0: the same rows, at the same times to round-off
    # (a row is taken at the first step after its time)
    rows() { cut -d, -f1 "$1" | awk 'NR > 1 { printf "%.6f\n", $1 }'; }
    if [ "$(rows "$one/probes.csv")" != "$(rows "$many/probes.csv")" ]; then
        echo "FAIL probes: the rows of probes.csv differ"
        fails=$((fails + 1))
    else
        echo "ok   probes.csv: $(wc -l <"$many/probes.csv") lines, the same times"
    fi
    # the mass is the fluid particles' count over the ranks times m: the same digits in every row
    # after migrations (a ghost counted, or a rank's share missing, changes it)
    mass() { awk -F, 'NR == 1 { for (c = 1; c <= NF; ++c) if ($c ~ /^mass/) col = c; next } { print $col }' "$1"; }
    if [ "$(mass "$one/probes.csv")" != "$(mass "$many/probes.csv")" ]; then
        echo "FAIL probes: the mass column differs"
        fails=$((fails + 1))
    else
        echo "ok   probes.csv: the mass $(mass "$many/probes.csv" | tail -1) in every row, as on one rank"
    fi
    # the balance: as the water spreads the cuts follow it, each rank within 10% of the mean count
    "$mpiexec" "${mpi_flags[@]}" -np 3 "$exe" run dam_break_2d.cfg --out balance --until 0.3 --threads 1 \
        >/dev/null 2>balance.err || { echo "FAIL 3 ranks to 0.3 s"; cat balance.err; exit 1; }
    shares=$(grep "particles per rank" balance.err)
    first=$(echo "$shares" | head -1 | sed 's/.*cut at cell columns \([0-9 ]*\) of.*/\1/')
    last=$(echo "$shares" | tail -1 | sed 's/.*cut at cell columns \([0-9 ]*\) of.*/\1/')
    spread=$(echo "$shares" | tail -1 | sed 's/.*particles per rank \([0-9 ]*\).*/\1/' |
        awk '{ m = 0; t = 0; for (i = 1; i <= NF; ++i) { t += $i; if ($i > m) m = $i } printf "%.3f", m * NF / t }')
    if [ "$first" = "$last" ] || awk -v s="$spread" 'BEGIN { exit !(s > 1.10) }'; then
        echo "FAIL balance: cuts at columns $first, then $last; largest rank over the mean $spread"
        fails=$((fails + 1))
    else
        echo "ok   balance: cuts at columns $first, at 0.3 s $last; largest rank over the mean $spread"
    fi
    # the balance by work (the default): the cuts follow the ranks' measured time per step, and the
    # run must still be the one-rank run within the 2000-step bound. A fluid particle costs more than
    # a wall particle, so the count-balanced cuts usually leave the ranks' work 10% or more apart on
    # 2 cores, but not always (session 23: 0.8775 against 0.8749 ms, 0.15% over the mean, under the
    # default threshold of 3%, and the cuts did not move); a threshold of 0.01% makes any measured
    # difference move them, so the case tests the mechanism, not the machine's timings.
    SLUICE_MPI_IMBALANCE=1.0001 SLUICE_MPI_BALANCE=time "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --backend cpu \
        --out by_work --until 0.08 --threads 1 >/dev/null 2>work.err || { echo "FAIL 2 ranks balanced by work"; cat work.err; exit 1; }
    agree "2D, 2 ranks balanced by work, to 0.08 s" "one_$(echo "dam_break_2d.cfg --until 0.08" | tr -c 'a-zA-Z0-9\n' _)" \
        by_work 1e-3
    # (each balance by work is followed by a correction at the next window over a third of the
    # threshold, here any: the marginal costs measured across the balance are then used)
    moved=$(sed -n 's/.*; \([0-9]*\) balances by work, [0-9]* of them corrections).*/\1/p' work.err | tail -1)
    corrected=$(sed -n 's/.*; [0-9]* balances by work, \([0-9]*\) of them corrections).*/\1/p' work.err | tail -1)
    if [ -z "$moved" ] || [ "$moved" -lt 1 ]; then
        echo "FAIL balance by work: the cuts never moved by work ($(grep -o 'ms worked per step[^)]*)' work.err | tail -1))"
        fails=$((fails + 1))
    elif [ -z "$corrected" ] || [ "$corrected" -lt 1 ] || [ "$corrected" -gt $((moved / 2)) ]; then
        echo "FAIL balance by work: $corrected corrections in $moved balances (at least one, at most one a balance)"
        fails=$((fails + 1))
    else
        echo "ok   balance by work: $(grep -o 'ms worked per step[^)]*)' work.err | tail -1)"
    fi
    # the spent ghosts parked after every step and dropped by the next sort, compacted first only
    # where output or probes read the particles (here every 0.01 s: a few dozen of some 2,000 steps)
    parks=$(sed -n 's/.*; ghosts parked for the next sort \([0-9]*\) times, [0-9]* of them.*/\1/p' work.err | tail -1)
    settles=$(sed -n 's/.*; ghosts parked for the next sort [0-9]* times, \([0-9]*\) of them.*/\1/p' work.err | tail -1)
    if [ -z "$parks" ] || [ "$parks" -lt 1000 ] || [ -z "$settles" ] || [ "$settles" -lt 1 ] ||
        [ "$settles" -gt $((parks / 10)) ]; then
        echo "FAIL parked ghosts: parked ${parks:-never}, compacted first ${settles:-never} (over 1000 and a few)"
        fails=$((fails + 1))
    else
        echo "ok   parked ghosts: parked $parks times, compacted first $settles"
    fi
    refused "SLUICE_MPI_BALANCE=sideways refused" "SLUICE_MPI_BALANCE=sideways: accepted: time" env SLUICE_MPI_BALANCE=sideways \
        "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --out bad_balance --steps 2 --quiet --threads 1
    refused "SLUICE_MPI_IMBALANCE=1 refused" "SLUICE_MPI_IMBALANCE=1: accepted: a number above 1 and at most 2" \
        env SLUICE_MPI_IMBALANCE=1 "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --out bad_imbalance \
        --steps 2 --quiet --threads 1
    ;;
dam_break_3d)
    against_one "3D, 2 ranks, 20 steps" dam_break_3d.cfg 2 1e-5 --steps 20
    # to an output time (302 steps), whose time is the XDMF's whatever the last digits of each step
    against_one "3D, 2 ranks, to 0.03 s" dam_break_3d.cfg 2 1e-3 --until 0.03
    ;;
mdbc)
    # WCSPH with mDBC walls: the ghost band widened by the longest ghost-node offset, the ghost walls'
    # density sent again after the model's pass (measured: 0 after 20 steps, <= 2.6e-5 dp at 0.08 s)
    sed 's/delta = 0.1; };/delta = 0.1; boundary = "mdbc"; };/' dam_break_2d.cfg >mdbc.cfg
    against_one "mDBC, 2 ranks, 20 steps" mdbc.cfg 2 1e-5 --steps 20
    against_one "mDBC, 3 ranks, to 0.08 s" mdbc.cfg 3 1e-3 --until 0.08
    ;;
emps)
    against_one "explicit MPS, 2 ranks, 20 steps" emps.cfg 2 1e-5 --steps 20
    # to an output time (399 steps), as in dam_break_2d
    against_one "explicit MPS, 2 ranks, to 0.03 s" emps.cfg 2 2e-4 --until 0.03
    against_one "explicit MPS, 3 ranks, to 0.03 s" emps.cfg 3 2e-4 --until 0.03
    ;;
floating)
    # measured: 0 dp after 0.2 s (635 steps) on 2 and 3 ranks; without the sum over the ranks the run
    # blows up before 0.17 s
    against_one "floating box, 2 ranks, to 0.2 s" floating.cfg 2 1e-3 --until 0.2
    # bodies.csv is written by rank 0 alone, from the state every rank holds
    if [ "$(wc -l <"$one/bodies.csv")" != "$(wc -l <"$many/bodies.csv")" ] ||
        [ "$(tail -1 "$one/bodies.csv" | cut -d, -f1-5)" != "$(tail -1 "$many/bodies.csv" | cut -d, -f1-5)" ]; then
        echo "FAIL bodies.csv: the rows or the last centre differ"
        fails=$((fails + 1))
    else
        echo "ok   bodies.csv: $(wc -l <"$many/bodies.csv") lines, the last centre $(tail -1 "$many/bodies.csv" | cut -d, -f3-4)"
    fi
    ;;
mps)
    # The multigrid is one rank's spread over the ranks (its cell levels cut as the particles are,
    # halos between them: solver/multigrid.h), so each step takes one rank's iterations, off by one
    # only where a solve ends within a rounding of its tolerance. Measured over these 90 steps: the
    # same count at every step on 2 and 3 ranks, with either cycle. Bound: within 1 of one rank's.
    # The earlier overlapping blocks (each rank's cycle on its rows and its ghosts',
    # SLUICE_MPI_MG=blocks) took 1.33x to 1.67x one rank's iterations on 2 ranks and 1.33x to 1.83x
    # on 3, outside it; they stay as a measurement knob, checked against one rank below.
    # After 20 steps the positions agree to the last bit (measured: 0 dp); the blocks took them
    # 1.9e-6 dp apart, and so did the first level's halo left out (tried; 18 of these 90 steps then
    # took 2 iterations more than one rank). Bound: 2e-7 dp, a few roundings of a
    # float position (7.5e-6 dp at x = 0.4 m is one rounding; most particles sit nearer the origin).
    against_one "semi-implicit MPS, multigrid, 2 ranks, 20 steps" mps.cfg 2 2e-7 --steps 20
    against_one "semi-implicit MPS, multigrid, 2 ranks, to 0.05 s" mps.cfg 2 2e-4 --until 0.05
    iterations_agree "multigrid, 2 ranks, CG iterations per step" "$one" "$many" 1 1 1
    against_one "semi-implicit MPS, multigrid, 3 ranks, to 0.05 s" mps.cfg 3 2e-4 --until 0.05
    iterations_agree "multigrid, 3 ranks, CG iterations per step" "$one" "$many" 1 1 1
    # checkpoints across rank counts (the solve starts warm from the checkpoint's pressure)
    runN 2 mps.cfg --out mps_from_two --until 0.03
    run1 mps.cfg --out mps_from_two --until 0.05 --restart mps_from_two/checkpoint.bin
    agree "semi-implicit MPS, 2 ranks to 0.03 s, then 1 rank to 0.05 s" "$one" mps_from_two 2e-4
    run1 mps.cfg --out mps_from_one --until 0.03
    runN 3 mps.cfg --out mps_from_one --until 0.05 --restart mps_from_one/checkpoint.bin
    agree "semi-implicit MPS, 1 rank to 0.03 s, then 3 ranks to 0.05 s" "$one" mps_from_one 2e-4
    # the GPU's cycle (hybrid: the restriction from the row partials, which reads the ghosts' rows)
    export SLUICE_MG_CYCLE=hybrid
    sed 's|cg_tolerance = 1.0e-6;|cg_tolerance = 1.0e-6; /* hybrid */|' mps.cfg >hybrid.cfg
    against_one "semi-implicit MPS, multigrid's hybrid cycle, 3 ranks, to 0.03 s" hybrid.cfg 3 2e-4 --until 0.03
    iterations_agree "multigrid's hybrid cycle, 3 ranks, CG iterations per step" "$one" "$many" 1 1 1
    unset SLUICE_MG_CYCLE
    # the levels from the first of at most SLUICE_MG_GATHER_CELLS cells gathered whole on every rank
    # (here by default from level 1 on): halos on every level instead (0), or from level 2 on (100)
    for cells in 0 100; do
        export SLUICE_MG_GATHER_CELLS=$cells
        sed "s|cg_tolerance = 1.0e-6;|cg_tolerance = 1.0e-6; /* gather $cells */|" mps.cfg >gather$cells.cfg
        against_one "semi-implicit MPS, multigrid, SLUICE_MG_GATHER_CELLS=$cells, 3 ranks, to 0.03 s" gather$cells.cfg 3 2e-4 --until 0.03
        iterations_agree "SLUICE_MG_GATHER_CELLS=$cells, 3 ranks, CG iterations per step" "$one" "$many" 1 1 1
        gathered[$cells]=$many
    done
    unset SLUICE_MG_GATHER_CELLS
    # the ring levels (solver/multigrid.c, ring_cycle): on the cut levels after level 0, whose loops
    # also run over a ring of the neighbours' columns, the halos of b and of the coarse solution alone;
    # SLUICE_MG_RING=0 keeps a halo before every loop. Both are one rank's cycle (the cases above run
    # the rings), and the rings take fewer halos a step (measured on 3 ranks with halos on every
    # level: 89.2 against 115.6 a step here, 136 against 208 for SPHERIC Test 2 at 80k particles; the
    # counts do not vary from run to run; bound: under 0.8 times). The rings repeat the owners'
    # arithmetic at the neighbours' cells, so the two give the same bits (bound 0).
    export SLUICE_MG_GATHER_CELLS=0 SLUICE_MG_RING=0
    sed "s|cg_tolerance = 1.0e-6;|cg_tolerance = 1.0e-6; /* no ring */|" mps.cfg >noring.cfg
    against_one "semi-implicit MPS, multigrid without the rings, halos on every level, 3 ranks, to 0.03 s" noring.cfg 3 2e-4 --until 0.03
    iterations_agree "without the rings, 3 ranks, CG iterations per step" "$one" "$many" 1 1 1
    agree "the rings against a halo before every loop, 3 ranks, to 0.03 s" "${gathered[0]}" "$many" 0
    halos_a_step() {
        "$mpiexec" "${mpi_flags[@]}" -np 3 "$exe" run --backend cpu mps.cfg --out halos --steps 5 --threads 1 2>&1 \
            >/dev/null | sed -n "s/.*; \([0-9.]*\) cell levels' halos a step.*/\1/p"
    }
    narrow=$(halos_a_step)
    unset SLUICE_MG_RING
    ring=$(halos_a_step)
    unset SLUICE_MG_GATHER_CELLS
    if awk -v r="$ring" -v n="$narrow" 'BEGIN { exit !(r > 0 && n > 0 && r < 0.8 * n) }'; then
        echo "ok   the rings: $ring cell levels' halos a step against $narrow without, 3 ranks"
    else
        echo "FAIL the rings: '$ring' cell levels' halos a step against '$narrow' without (bound: under 0.8 times)"
        fails=$((fails + 1))
    fi
    export SLUICE_MPI_MG=blocks
    sed 's|cg_tolerance = 1.0e-6;|cg_tolerance = 1.0e-6; /* blocks */|' mps.cfg >blocks.cfg
    against_one "semi-implicit MPS, overlapping blocks, 2 ranks, 20 steps" blocks.cfg 2 1e-5 --steps 20
    unset SLUICE_MPI_MG
    # The scene's dynamic stabilisation from 0.9 l0 (mps.collision_model = "dynamic"). It first acts
    # after step 20 here, and by 0.05 s it has moved the flow 1.1 dp from the collisions' run. Its push
    # (d - r)/(2 dt) turns a pair's position difference into a velocity, so it grows the solve's
    # tolerance-level differences faster: on one rank, multigrid against Jacobi differ by 9.7e-4 dp
    # at 0.05 s with it (3.0e-5 with the collisions); 3 ranks against one 2.5e-3 dp (Jacobi: 2 and 3
    # ranks 7.4e-4 and 1.2e-3). Bound: 1e-2 dp, 10x the one-rank spread and 4x the measured; a pair
    # across the cut that one rank missed would move by a fraction of d - r, hundredths of dp.
    sed 's/collision_distance = 0.8;/collision_distance = 0.9; collision_model = "dynamic";/' mps.cfg >ds.cfg
    against_one "semi-implicit MPS, dynamic stabilisation, 3 ranks, to 0.05 s" ds.cfg 3 1e-2 --until 0.05
    ;;
mps_jacobi)
    # Jacobi's preconditioner is the same on any number of ranks: the iterations differ only where a
    # solve ends within a rounding of its tolerance (measured: none in 90 steps, at most 2 in 181)
    sed 's/preconditioner = "multigrid"/preconditioner = "jacobi"/' mps.cfg >jacobi.cfg
    against_one "semi-implicit MPS, Jacobi, 2 ranks, 20 steps" jacobi.cfg 2 1e-5 --steps 20
    against_one "semi-implicit MPS, Jacobi, 2 ranks, to 0.05 s" jacobi.cfg 2 2e-4 --until 0.05
    iterations_agree "Jacobi, 2 ranks, CG iterations per step" "$one" "$many" 1 1 2
    against_one "semi-implicit MPS, Jacobi, 3 ranks, to 0.05 s" jacobi.cfg 3 2e-4 --until 0.05
    iterations_agree "Jacobi, 3 ranks, CG iterations per step" "$one" "$many" 1 1 2
    ;;
probes)
    # Sensors, gauges, the front and the energies on 2 ranks against one, a row every step for 20
    # steps (see the tolerance above). The cut of 2 ranks lies in the water (the ranks balance the
    # particles, most of them fluid): sensors on the floor every 0.01 m and gauges every 0.02 m
    # across the water put kernels on both sides of it wherever it falls, so that their sums have
    # terms from both ranks; and sensors dry in the air and on the far wall.
    # (the cells of one rank, numerics.cell_skin = 0, so that the states agree bit for bit)
    sed -e 's/^probes = .*/probes = { interval = 1.0e-5; front = "+x"; energy = true;/' \
        -e 's/delta = 0.1; };/delta = 0.1; cell_skin = 0.0; };/' \
        -e 's/^           pressure = .*/  gauges = ( { name = "G1"; at = 0.01; }, { name = "G3"; at = 0.03; }, { name = "G5"; at = 0.05; },\
             { name = "G7"; at = 0.07; }, { name = "G9"; at = 0.09; }, { name = "Gdry"; at = 0.3; } );\
  pressure = ( { name = "F1"; at = [0.01, 0.0]; }, { name = "F2"; at = [0.02, 0.0]; }, { name = "F3"; at = [0.03, 0.0]; },\
               { name = "F4"; at = [0.04, 0.0]; }, { name = "F5"; at = [0.05, 0.0]; }, { name = "F6"; at = [0.06, 0.0]; },\
               { name = "F7"; at = [0.07, 0.0]; }, { name = "F8"; at = [0.08, 0.0]; }, { name = "F9"; at = [0.09, 0.0]; },\
               { name = "W"; at = [0.0, 0.05]; }, { name = "Air"; at = [0.05, 0.13]; }, { name = "Far"; at = [0.4, 0.02]; } ); };/' \
        dam_break_2d.cfg >probes_2d.cfg
    against_one "probes 2D, 2 ranks, 20 steps (the state)" probes_2d.cfg 2 0 --steps 20
    probes_agree "probes 2D, 2 ranks, a row every step" "$one/probes.csv" "$many/probes.csv" 1e-7
    # 3D: dam_break_3d.cfg's numerics with the water over 0.12 m of a 0.2 m tank, so that the cut
    # lies in it, not among the walls beyond: the grid's longest axis is then z (the headroom above
    # the tank), cut at cell column 3 of 14 (measured), through the water, so every gauge's column and
    # the wall sensors' kernels have particles on both ranks and each gauge's top and bottom are
    # on different ranks (domain_max). Tried: without domain_sum_to_root's reduction the 2D rows are
    # off by up to 0.9 of a column's scale and the 3D rows by 0.84; without domain_max's, 0.32 in 2D
    # (the front, the gauges) and the 3D run stops with MPI_ERR_TRUNCATE (the ranks' gauge heights,
    # hence their counts, differ).
    sed -e 's/max = \[0.4, 0.1, 0.15\]/max = [0.2, 0.1, 0.15]/' -e 's/max = \[0.1, 0.1, 0.1\]/max = [0.12, 0.1, 0.1]/' \
        -e 's/delta = 0.1; };/delta = 0.1; cell_skin = 0.0; };/' dam_break_3d.cfg >probes_3d.cfg
    cat >>probes_3d.cfg <<'CFG'
probes = { interval = 1.0e-5; front = "+x"; energy = true;
  gauges = ( { name = "G2"; at = [0.02, 0.05]; }, { name = "G4"; at = [0.04, 0.02]; }, { name = "G6"; at = [0.06, 0.05]; },
             { name = "G8"; at = [0.08, 0.08]; }, { name = "G10"; at = [0.1, 0.05]; }, { name = "Gdry"; at = [0.18, 0.05]; } );
  pressure = ( { name = "F2"; at = [0.02, 0.05, 0.0]; }, { name = "F4"; at = [0.04, 0.05, 0.0]; },
               { name = "F6"; at = [0.06, 0.05, 0.0]; }, { name = "F8"; at = [0.08, 0.05, 0.0]; },
               { name = "F10"; at = [0.1, 0.05, 0.0]; }, { name = "S"; at = [0.09, 0.0, 0.04]; },
               { name = "W"; at = [0.0, 0.05, 0.05]; }, { name = "Air"; at = [0.05, 0.05, 0.13]; } ); };
CFG
    against_one "probes 3D, 2 ranks, 20 steps (the state)" probes_3d.cfg 2 0 --steps 20
    probes_agree "probes 3D, 2 ranks, a row every step" "$one/probes.csv" "$many/probes.csv" 1e-7
    ;;
restart)
    # output times, so that the stopped runs' series are the straight one's
    run1 dam_break_2d.cfg --out straight --until 0.08
    # a checkpoint from 2 ranks continued on 1, and one from 1 rank continued on 3
    runN 2 dam_break_2d.cfg --out from_two --until 0.04
    run1 dam_break_2d.cfg --out from_two --until 0.08 --restart from_two/checkpoint.bin
    agree "2 ranks to 0.04 s, then 1 rank to 0.08 s" straight from_two 1e-3
    run1 dam_break_2d.cfg --out from_one --until 0.04
    runN 3 dam_break_2d.cfg --out from_one --until 0.08 --restart from_one/checkpoint.bin
    agree "1 rank to 0.04 s, then 3 ranks to 0.08 s" straight from_one 1e-3
    ;;
cuda)
    # The CUDA backend (the halo through backend.halo, gpu/cuda_halo.cu), 2 ranks sharing the
    # devices, against one rank on the device. The radix sort keeps the order inside a cell as the
    # CPU's does, so the CPU's bounds are expected to hold; not yet run on a GPU when this was
    # written. Semi-implicit MPS (Jacobi and multigrid: every CG iteration's refresh, the blocks'
    # add-back and clears), mDBC (a refresh of every field) and the floating bodies (the ghosts'
    # shares zeroed) take each hook's path; their bounds are the CPU cases', not yet tried on a GPU.
    if ! "$exe" info | grep -q "^CUDA devices: *[1-9]"; then
        echo "no CUDA device: skipped (run this test on a machine with an NVIDIA GPU)"
        exit 77
    fi
    gpu=(--backend cuda --sort radix)
    against_one "CUDA, 2D, 2 ranks, 20 steps" dam_break_2d.cfg 2 1e-5 --steps 20 "${gpu[@]}"
    against_one "CUDA, 2D, 2 ranks, to 0.08 s" dam_break_2d.cfg 2 1e-3 --until 0.08 "${gpu[@]}"
    # the cell build staged (the movers' and the bands' records fetched, the leavers removed and the
    # arrivals appended on the device) against the whole arrays copied each way, which leave the
    # same arrays on the device: the same bits, on 2 ranks and on 3 (a balance that moves the cuts
    # sends particles past a neighbour). One strategy, so that the autotuner's timings choose nothing.
    fixed=("${gpu[@]}" --strategy par-part)
    # The staged runs send GPU to GPU (SLUICE_MPI_TRANSFER=device: CUDA IPC, mpi_transfer.c; the run
    # fails where it cannot), and again through the host: the same bytes land in the same places, so
    # the same bits.
    for np in 2 3; do
        SLUICE_MPI_TRANSFER=device runN $np dam_break_2d.cfg --out np${np}_staged --until 0.08 "${fixed[@]}"
        SLUICE_MPI_WHOLE_ARRAYS=1 runN $np dam_break_2d.cfg --out np${np}_whole --until 0.08 "${fixed[@]}"
        agree "CUDA, $np ranks, the staged cell build against whole arrays, to 0.08 s" np${np}_staged np${np}_whole 0
        SLUICE_MPI_TRANSFER=host runN $np dam_break_2d.cfg --out np${np}_host --until 0.08 "${fixed[@]}"
        agree "CUDA, $np ranks, GPU to GPU against through the host, to 0.08 s" np${np}_staged np${np}_host 0
    done
    # the closing line names the path taken
    SLUICE_MPI_TRANSFER=device "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --out path2 --steps 5 \
        "${fixed[@]}" >path.out 2>&1
    if grep -q "exchanges GPU to GPU" path.out; then
        echo "ok   the closing line: exchanges GPU to GPU"
    else
        echo "FAIL the closing line does not say the exchanges went GPU to GPU:"
        tail -n 3 path.out
        fails=$((fails + 1))
    fi
    # semi-implicit MPS: a refresh per product and the cell levels' halos, each way
    SLUICE_MPI_TRANSFER=device runN 2 mps.cfg --out mps_device --steps 10 "${fixed[@]}"
    SLUICE_MPI_TRANSFER=host runN 2 mps.cfg --out mps_host --steps 10 "${fixed[@]}"
    agree "CUDA, semi-implicit MPS, 2 ranks, GPU to GPU against through the host" mps_device mps_host 0
    run1 dam_break_2d.cfg --out one_fixed --until 0.08 "${fixed[@]}"
    agree "CUDA, 2D, 3 ranks against one, to 0.08 s" one_fixed np3_staged 1e-3
    # the corrector on the cells of the step's start (numerics.cell_skin; the default at e713b71,
    # when every CUDA case above ran with it on 4 x H100)
    sed 's/delta = 0.1; };/delta = 0.1; cell_skin = 0.1; };/' dam_break_2d.cfg >skin.cfg
    against_one "CUDA, 2D, 2 ranks with the cells' skin, to 0.08 s" skin.cfg 2 1e-3 --until 0.08 "${gpu[@]}"
    against_one "CUDA, explicit MPS, 2 ranks, to 0.03 s" emps.cfg 2 2e-4 --until 0.03 "${gpu[@]}"
    sed 's/delta = 0.1; };/delta = 0.1; boundary = "mdbc"; };/' dam_break_2d.cfg >mdbc.cfg
    sed 's/preconditioner = "multigrid"/preconditioner = "jacobi"/' mps.cfg >jacobi.cfg
    against_one "CUDA, mDBC, 2 ranks, 20 steps" mdbc.cfg 2 1e-5 --steps 20 "${gpu[@]}"
    against_one "CUDA, semi-implicit MPS, multigrid, 2 ranks, 20 steps" mps.cfg 2 1e-5 --steps 20 "${gpu[@]}"
    # one rank's cycle spread over the ranks (the cell levels' halos through backend.mg.columns):
    # one rank's iterations, as on the CPU (one rank replays the cycle as a graph, the ranks launch
    # its loops one by one: the same arithmetic)
    against_one "CUDA, semi-implicit MPS, multigrid, 3 ranks, to 0.03 s" mps.cfg 3 2e-4 --until 0.03 "${gpu[@]}"
    iterations_agree "CUDA, multigrid, 3 ranks, CG iterations per step" "$one" "$many" 1 1 1
    # halos on every level, so that the cut levels after level 0 run their rings (ring_cycle), the
    # ring's listing through list_cells(level -1), against the same cycle with a halo before every loop
    export SLUICE_MG_GATHER_CELLS=0
    sed "s|cg_tolerance = 1.0e-6;|cg_tolerance = 1.0e-6; /* rings */|" mps.cfg >rings.cfg
    against_one "CUDA, semi-implicit MPS, multigrid's rings, 3 ranks, to 0.03 s" rings.cfg 3 2e-4 --until 0.03 "${gpu[@]}"
    iterations_agree "CUDA, multigrid's rings, 3 ranks, CG iterations per step" "$one" "$many" 1 1 1
    rings=$many
    export SLUICE_MG_RING=0
    sed "s|cg_tolerance = 1.0e-6;|cg_tolerance = 1.0e-6; /* no rings */|" mps.cfg >norings.cfg
    runN 3 norings.cfg --out norings --until 0.03 "${gpu[@]}"
    # the same loops over the same cells; a rank sums a ring cell's stencil in its own level's lanes,
    # which may not be the owner's (each rank shapes its levels from its own counts), so the bound
    # is the one-rank comparison's rather than the CPU's 0
    agree "CUDA, the rings against a halo before every loop, 3 ranks, to 0.03 s" "$rings" norings 2e-4
    unset SLUICE_MG_RING
    # the cell levels' halos GPU to GPU (mpi_cells_direct.c, CUDA IPC, asked for: the run fails where
    # it cannot) against the same halos through the host: the same values land in the same cells, so
    # the same bits; and the closing line says which way they went
    SLUICE_MPI_CELL_HALOS=device "$mpiexec" "${mpi_flags[@]}" -np 3 "$exe" run rings.cfg --out cells_device \
        --until 0.03 --threads 1 "${gpu[@]}" >cells.out 2>&1 || { echo "FAIL 3 ranks, halos GPU to GPU:"; tail -n 5 cells.out; exit 1; }
    SLUICE_MPI_CELL_HALOS=host runN 3 rings.cfg --out cells_host --until 0.03 "${gpu[@]}"
    agree "CUDA, the cell levels' halos GPU to GPU against through the host, 3 ranks, to 0.03 s" cells_device \
        cells_host 0
    if grep -q "of it in the copies GPU to GPU" cells.out; then
        echo "ok   the closing line: the cell levels' halos GPU to GPU"
    else
        echo "FAIL the closing line does not say the cell levels' halos went GPU to GPU:"
        grep "cell levels' halos" cells.out | tail -n 1
        fails=$((fails + 1))
    fi
    unset SLUICE_MG_GATHER_CELLS
    against_one "CUDA, semi-implicit MPS, Jacobi, 2 ranks, 20 steps" jacobi.cfg 2 1e-5 --steps 20 "${gpu[@]}"
    against_one "CUDA, floating box, 2 ranks, to 0.2 s" floating.cfg 2 1e-3 --until 0.2 "${gpu[@]}"
    ;;
viewer)
    # the viewer on ranks: the root draws the state gathered from every rank. The PNG frames of 2
    # ranks are those of one rank byte for byte: within 40 steps no particle migrates, so the state
    # is bit-identical, and the drawing does not depend on the particles' order (2D, orthographic,
    # opaque points of one depth; the cells of one rank, numerics.cell_skin = 0)
    frames=(--frame-every 0.0002 --steps 40 --size 320x180 --backend cpu --threads 1 --quiet)
    sed 's/delta = 0.1; };/delta = 0.1; cell_skin = 0.0; };/' dam_break_2d.cfg >frames.cfg
    env -u DISPLAY -u WAYLAND_DISPLAY "$exe" run frames.cfg --out v1 --frames fr1 "${frames[@]}" >/dev/null \
        2>err1 || { echo "FAIL frames on one rank:"; cat err1; exit 1; }
    env -u DISPLAY -u WAYLAND_DISPLAY "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run frames.cfg --out v2 \
        --frames fr2 "${frames[@]}" >/dev/null 2>err2 || { echo "FAIL frames on 2 ranks:"; cat err2; exit 1; }
    n1=$(ls fr1 | wc -l)
    same=0
    for f in fr1/*.png; do cmp -s "$f" "fr2/$(basename "$f")" && same=$((same + 1)); done
    if [ "$n1" -lt 3 ] || [ "$(ls fr2 | wc -l)" != "$n1" ] || [ "$same" != "$n1" ]; then
        echo "FAIL frames on 2 ranks: $(ls fr2 | wc -l) frames against one rank's $n1, $same identical"
        fails=$((fails + 1))
    else
        echo "ok   frames on 2 ranks: the $n1 PNG frames of one rank, byte for byte"
    fi
    # the window on the root (under Xvfb): its quit (--max-frames, like q) ends every rank's run at
    # the same step, cleanly (the final snapshot and checkpoint, gathered)
    if command -v xvfb-run >/dev/null; then
        timeout 120 xvfb-run -a -s "-screen 0 1024x768x24" "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run \
            dam_break_2d.cfg --view --max-frames 3 --size 320x180 --backend cpu --threads 1 --out w2 >out 2>err
        rc=$?
        if [ $rc -ne 0 ] || ! grep -q "stopped from the viewer" out || ! grep -q "</Xdmf>" w2/snapshots.xmf ||
            [ ! -f w2/checkpoint.bin ]; then
            echo "FAIL the window on 2 ranks: exit status $rc (124: hung); stdout and stderr:"
            head -3 out err
            fails=$((fails + 1))
        else
            echo "ok   the window on 2 ranks: $(grep -m1 'stopped from the viewer' out)"
        fi
    else
        echo "FAIL xvfb-run is missing (make test installs xvfb)"
        fails=$((fails + 1))
    fi
    ;;
errors)
    # every axis periodic leaves no axis to cut: refused with the scene key, said once
    cat >periodic.cfg <<'CFG'
simulation = { method = "wcsph"; dimension = 2; end_time = 1.0; domain_min = [0.0, 0.0]; domain_max = [0.2, 0.2];
               periodic = ["x", "y"]; };
fluid = { density = 1000.0; gravity = [0.0, 0.0]; sound_speed = 10.0; };
numerics = { spacing = 0.01; };
geometry = ( { type = "fluid"; min = [0.0, 0.0]; max = [0.2, 0.2]; } );
output = { directory = "out"; interval = 0.1; };
CFG
    "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run periodic.cfg --out periodic --quiet >out 2>err
    rc=$?
    n=$(grep -c "key 'simulation.periodic': every axis is periodic" err)
    if [ $rc -eq 0 ] || [ "$n" != 1 ]; then
        echo "FAIL every axis periodic on 2 ranks: exit status $rc, the message $n times:"
        head -3 err
        fails=$((fails + 1))
    else
        echo "ok   every axis periodic on 2 ranks refused: $(grep -m1 simulation.periodic err)"
    fi
    # rank 0 fails writing a snapshot while rank 1 goes on: every rank stops, no hang
    mkdir -p blocked/snap_000001.h5/in_the_way
    refused "a failing rank stops every rank" "rank 0 of 2: cannot write 'blocked/snap_000001.h5'" \
        "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --out blocked --steps 2000 --quiet --threads 1
    # the exchanges' path (mpi_transfer.c): the CPU backend's go through host memory, and says so;
    # asking for GPU to GPU there, or for a path that does not exist, is refused with the variable
    "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --out hostpath --steps 3 --threads 1 >out 2>err
    if [ $? -ne 0 ] || ! grep -q "exchanges through host memory" err; then
        echo "FAIL the CPU backend's closing line does not say the exchanges went through host memory:"
        tail -n 2 err
        fails=$((fails + 1))
    else
        echo "ok   the CPU backend's exchanges go through host memory"
    fi
    for want in device sideways; do
        refused "SLUICE_MPI_TRANSFER=$want on the CPU refused" "SLUICE_MPI_TRANSFER=$want" env SLUICE_MPI_TRANSFER=$want \
            "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run dam_break_2d.cfg --out path_$want --steps 3 --quiet --threads 1
    done
    # the cell levels' halos likewise (mpi_cells_direct.c): GPU to GPU asked for on the CPU, or a
    # path that does not exist, refused with the variable at the first halo
    for want in device sideways; do
        refused "SLUICE_MPI_CELL_HALOS=$want on the CPU refused" "SLUICE_MPI_CELL_HALOS=$want" \
            env SLUICE_MPI_CELL_HALOS=$want "$mpiexec" "${mpi_flags[@]}" -np 2 "$exe" run mps.cfg --out cells_$want \
            --steps 2 --quiet --threads 1
    done
    ;;
*)
    echo "mpi_test.sh: unknown case '$case_'"
    exit 2
    ;;
esac
exit $((fails > 0))
