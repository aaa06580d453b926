"""paraview_test.py: a run's snapshots.xmf and grid.xmf opened by ParaView (pvpython): time steps,
points, arrays and the grid as the HDF5 files hold them; a floating scene's `body` array.   usage: pvpython paraview_test.py SLUICE WORKDIR"""
import os
import subprocess
import sys

import h5py
from paraview import servermanager
from paraview.simple import Contour, Xdmf3ReaderS

sluice, work = sys.argv[1], os.path.abspath(sys.argv[2])
failures = []


def check(name, ok, detail=""):
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def scene(dim):
    vec = (lambda *v: "[" + ", ".join(f"{x:.3f}" for x in v[:dim]) + "]")
    return f"""
simulation = {{ dimension = {dim}; end_time = 0.02; }};
numerics = {{ spacing = 0.02; }};
geometry = ( {{ type = "tank"; min = {vec(0, 0, 0)}; max = {vec(0.3, 0.1, 0.2) if dim == 3 else vec(0.3, 0.2)}; }},
             {{ type = "fluid"; min = {vec(0, 0, 0)}; max = {vec(0.1, 0.1, 0.1)}; }} );
output = {{ interval = 0.01; }};
grid = {{ spacing = 0.02; order = 4; }};
"""


def fetch(reader, t):
    reader.UpdatePipeline(t)
    return servermanager.Fetch(reader)


for dim in (2, 3):
    out = os.path.join(work, f"pv{dim}d")
    cfg = out + ".cfg"
    with open(cfg, "w") as f:
        f.write(scene(dim))
    subprocess.run([sluice, "run", cfg, "--out", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    snaps = sorted(n for n in os.listdir(out) if n.startswith("snap_"))
    with h5py.File(os.path.join(out, snaps[-1]), "r") as h:
        npart = h["particles/id"].shape[0]
        nodes = list(h["grid"].attrs["nodes"])
        fluid_mass = float(h["grid"].attrs["fluid_mass"])
        spacing = float(h["grid"].attrs["spacing"])

    # the particles: one time step per snapshot, one point (and vertex cell) per particle, every field
    p = Xdmf3ReaderS(FileName=[os.path.join(out, "snapshots.xmf")])
    times = list(p.TimestepValues)
    check(f"{dim}D particle time steps", len(times) == len(snaps) == 3 and abs(times[-1] - 0.02) < 1e-12,
          f"{times} for {len(snaps)} snapshots")
    d = fetch(p, times[-1])
    check(f"{dim}D points", d.GetNumberOfPoints() == npart and d.GetNumberOfCells() == npart,
          f"{d.GetNumberOfPoints()} points, {d.GetNumberOfCells()} cells, {npart} particles")
    arrays = {d.GetPointData().GetArrayName(i) for i in range(d.GetPointData().GetNumberOfArrays())}
    check(f"{dim}D particle arrays", {"velocity", "pressure", "density", "type", "id", "body"} <= arrays, str(arrays))
    check(f"{dim}D velocity is a vector", d.GetPointData().GetArray("velocity").GetNumberOfComponents() == 3)

    # the grid: an image with the snapshot's node counts, its fields, a free surface to contour, and
    # the fluid's mass (density x node volume summed; 1e-5 relative: float fields)
    g = Xdmf3ReaderS(FileName=[os.path.join(out, "grid.xmf")])
    check(f"{dim}D grid time steps", list(g.TimestepValues) == times, f"{list(g.TimestepValues)}")
    gd = fetch(g, times[-1])
    want = tuple(nodes) if dim == 3 else (nodes[0], nodes[1], 1)
    check(f"{dim}D grid nodes", gd.IsA("vtkImageData") and tuple(gd.GetDimensions()) == want,
          f"{gd.GetClassName()} {gd.GetDimensions()}, expected {want}")
    pd = gd.GetPointData()
    garrays = {pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())}
    check(f"{dim}D grid arrays", garrays == {"density", "velocity", "pressure"}, str(garrays))
    rho = pd.GetArray("density")
    total = sum(rho.GetValue(i) for i in range(rho.GetNumberOfTuples())) * spacing ** dim
    check(f"{dim}D grid mass", abs(total - fluid_mass) <= 1e-5 * fluid_mass, f"{total} vs {fluid_mass}")
    c = Contour(Input=g, ContourBy=["POINTS", "density"], Isosurfaces=[500.0])
    c.UpdatePipeline(times[-1])
    check(f"{dim}D free surface contour", servermanager.Fetch(c).GetNumberOfPoints() > 0)

# floating bodies: ParaView's `body` array is the snapshot's /particles/body point for point (rows are
# points), -1 for fluid and walls, 0 and 1 for the two boxes; /bodies has a row per body
out = os.path.join(work, "pvfloat")
with open(out + ".cfg", "w") as f:
    f.write("""
simulation = { method = "wcsph"; dimension = 2; end_time = 0.01; };
numerics = { spacing = 0.02; integrator = "symplectic"; };
geometry = ( { type = "tank"; min = [0.0, 0.0]; max = [0.8, 0.4]; layers = 3; },
             { type = "fluid"; min = [0.0, 0.0]; max = [0.8, 0.14]; },
             { type = "obstacle"; min = [0.2, 0.14]; max = [0.3, 0.24]; layers = 2; floating = { density = 500.0; }; },
             { type = "obstacle"; min = [0.5, 0.14]; max = [0.6, 0.24]; layers = 2; floating = { density = 500.0; }; } );
output = { interval = 0.01; };
""")
subprocess.run([sluice, "run", out + ".cfg", "--out", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)
snaps = sorted(n for n in os.listdir(out) if n.startswith("snap_"))
with h5py.File(os.path.join(out, snaps[-1]), "r") as h:
    body = list(h["particles/body"][:])
    nrows = h["bodies/position"].shape[0]
p = Xdmf3ReaderS(FileName=[os.path.join(out, "snapshots.xmf")])
d = fetch(p, list(p.TimestepValues)[-1])
a = d.GetPointData().GetArray("body")
got = [int(a.GetValue(i)) for i in range(a.GetNumberOfTuples())] if a else []
check("floating body array", got == body and sorted(set(got)) == [-1, 0, 1],
      f"{len(got)} values, {sorted(set(got))}; the file has {len(body)}, {sorted(set(body))}")
check("floating /bodies rows", nrows == 2, f"{nrows}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
