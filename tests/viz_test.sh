#!/usr/bin/env bash
# viz_test.sh: the viewer: PNG frames offscreen (EGL, no display) and from the window (under Xvfb),
# checked for size, fluid-coloured pixels in the water column and background elsewhere; the
# scripted quit; the messages for a missing display and bad options.
# usage: viz_test.sh SLUICE_EXE PNG_CHECK_EXE SOURCE_DIR
set -u
exe=$1
check_png=$2
src=$3
work=$(mktemp -d /tmp/sluice_viz_XXXXXX)
# KEEP=1 keeps the work directory for a look at the frames.
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

run() { # run NAME EXPECTED_STATUS COMMAND...
    local name=$1 want=$2
    shift 2
    "$@" >"$work/out" 2>"$work/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$name: exit status $got, expected $want"
        sed 's/^/  stderr: /' "$work/err" | tail -5
    else
        echo "ok   $name"
    fi
}
expect_in() { grep -q -- "$3" "$2" || { fail "$1: '$3' not in $(basename "$2")"; sed 's/^/  /' "$2" | head -5; }; }
png() { "$check_png" "$@" || fails=$((fails + 1)); }

# The 2D dam break (scenes/dam_break_2d.cfg): tank inner box [0, 0.4] x [0, 0.15], 3 wall layers of
# dp = 0.00142875 outside it; water column [0, 0.05715] x [0, 0.1143]. The viewer fits the particles:
view2d="-0.0036 0.4036 -0.0036 0.1493"
column2d="fluid 0.005 0.052 0.005 0.109 0.6"
air2d="background 0.1 0.3 0.02 0.14 0.97"

# 1. --frames with no display at all (EGL), in the same run as the snapshots
run "2D frames offscreen" 0 env -u DISPLAY -u WAYLAND_DISPLAY "$exe" run "$src/scenes/dam_break_2d.cfg" \
    --frames fr2d --frame-every 0.0002 --steps 40 --size 640x360 --out out2d --quiet
expect_in "2D frames offscreen" "$work/out" "frames: 3 PNG images in fr2d"
[ -f out2d/snapshots.xmf ] || fail "2D frames offscreen: no snapshots beside the frames"
ls fr2d/*.tmp >/dev/null 2>&1 && fail "2D frames offscreen: temporary files left"
png fr2d/frame_000000.png 640 360 $view2d $column2d $air2d
png fr2d/frame_000002.png 640 360 $view2d $column2d $air2d anyfluid 0.02

# 2. The 3D dam break, coarse (dp 0.05 m: 21,612 particles), seen from the front in orthographic
# projection (x right, z up) with the walls hidden; then the default perspective view.
sed 's/spacing = 0.0183333;/spacing = 0.05;/' "$src/scenes/dam_break_3d.cfg" >d3.cfg
cp d3.cfg d3_persp.cfg
cat >>d3.cfg <<'CFG'
viewer = { projection = "orthographic"; yaw = 0.0; pitch = 0.0; walls = "hidden"; colorbar = false; overlay = false; };
CFG
run "3D frames offscreen" 0 env -u DISPLAY -u WAYLAND_DISPLAY "$exe" run d3.cfg --frames fr3d \
    --frame-every 0.0004 --steps 2 --size 480x270 --out out3d --quiet
# tank inner box x [0, 3.22], z [0, 1.0], 3 layers of 0.05 m; water x [1.992, 3.22], z [0, 0.55]
view3d="-0.125 3.345 -0.125 0.975"
png fr3d/frame_000000.png 480 270 $view3d fluid 2.1 3.1 0.08 0.47 0.6 background 0.1 1.8 0.25 0.9 0.97
run "3D perspective" 0 env -u DISPLAY -u WAYLAND_DISPLAY "$exe" run d3_persp.cfg --frames fr3p --steps 0 \
    --size 480x270 --field pressure --out out3p --quiet
png fr3p/frame_000000.png 480 270 $view3d anyfluid 0.03

# 3. The window, under Xvfb: --max-frames ends the run like q (final snapshot and checkpoint); the
# frames of the same run come from the window's context.
if command -v xvfb-run >/dev/null; then
    run "window under Xvfb" 0 xvfb-run -a -s "-screen 0 1024x768x24" "$exe" run "$src/scenes/dam_break_2d.cfg" \
        --view --max-frames 4 --frames frw --frame-every 0.0002 --size 640x360 --out outw
    expect_in "window under Xvfb" "$work/out" "stopped from the viewer"
    expect_in "window under Xvfb" "$work/err" "through a GLFW window"
    [ -f outw/checkpoint.bin ] || fail "window under Xvfb: no checkpoint after the viewer's quit"
    grep -q "</Xdmf>" outw/snapshots.xmf 2>/dev/null || fail "window under Xvfb: no complete XDMF"
    png frw/frame_000000.png 640 360 $view2d $column2d $air2d
else
    fail "xvfb-run is missing (make test installs xvfb)"
fi

# 4. Messages
run "no display" 1 env -u DISPLAY -u WAYLAND_DISPLAY "$exe" run "$src/scenes/dam_break_2d.cfg" --view --steps 1 --out nd
expect_in "no display" "$work/err" "no display"
expect_in "no display" "$work/err" "--frames"
run "bad --field" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --frames x --field vorticity
expect_in "bad --field" "$work/err" "accepted: velocity, pressure, density, type"
run "bad --size" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --frames x --size 10x10
run "--frame-every alone" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --frame-every 0.1
run "--max-frames alone" 2 "$exe" run "$src/scenes/dam_break_2d.cfg" --max-frames 3
cat >bad_range.cfg <<'CFG'
numerics = { spacing = 0.01; };
geometry = ( { type = "fluid"; min = [0.0, 0.0]; max = [0.1, 0.1]; } );
viewer = {
  range_min = 2.0;
  range_max = 1.0;
};
CFG
run "viewer range" 2 "$exe" check bad_range.cfg
expect_in "viewer range" "$work/err" "bad_range.cfg:5: key 'viewer.range_max'"
sed 's/range_min = 2.0;/colormap = "jet";/' bad_range.cfg >bad_cmap.cfg
run "viewer colormap" 2 "$exe" check bad_cmap.cfg
expect_in "viewer colormap" "$work/err" "key 'viewer.colormap'"
expect_in "viewer colormap" "$work/err" "viridis"
[ -e x ] && fail "a refused run created its frames directory"

echo "$fails failure(s)"
[ "$fails" -eq 0 ]
