# Makefile: the two set-up commands of the README, wrapping CMake.
#   make run    installs what is missing, builds, runs scenes/dam_break_2d.cfg
#   make test   installs what is missing (ParaView and python3-h5py/matplotlib for the post-processing
#               tests too), builds, runs every test through ctest, then `make sanitize`
#   make sanitize  builds with ASan and UBSan in build-sanitize/ (CPU only) and runs the tests
#               labelled `sanitize` there: unit tests, cli, restart and determinism at small step counts
BUILD      ?= build
SCENE      ?= scenes/dam_break_2d.cfg
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
SANITIZE_BUILD ?= build-sanitize

# Debian 12 / Ubuntu 24.04 packages the build and the tests need. The viewer: GLFW, libepoxy, libpng,
# the GL/EGL headers; its tests: Xvfb and Mesa (llvmpipe: OpenGL 3.3 core under Xvfb and through EGL).
# Open MPI: runs on several ranks (SLUICE_MPI) and the tests labelled `mpi`.
DEB_PACKAGES = build-essential cmake pkg-config libhdf5-dev libconfig-dev libcmocka-dev \
               libglfw3-dev libepoxy-dev libpng-dev libgl-dev libegl-dev \
               xvfb xauth libgl1-mesa-dri libegl-mesa0 libglx-mesa0 \
               libopenmpi-dev openmpi-bin
# ... and those of the post-processing tests only (ParaView's pvpython, tools/sluice-report).
POST_PACKAGES = python3-paraview python3-h5py python3-numpy python3-matplotlib


.PHONY: all deps configure build run test sanitize clean

all: build

deps:
	@bash tools/install-deps.sh $(DEB_PACKAGES)

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DSLUICE_VIEWER=ON $(CMAKE_ARGS)

configure: deps $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/sluice run $(SCENE)

test: build
	@bash tools/install-deps.sh $(POST_PACKAGES)
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) sanitize

# CPU only (no CUDA, no viewer): the sanitizers instrument C code, not nvcc's host code, and GPU and
# GL drivers are not ASan-clean. RelWithDebInfo: optimised, with lines in the sanitizers' stacks.
$(SANITIZE_BUILD)/CMakeCache.txt:
	cmake -S . -B $(SANITIZE_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSLUICE_CUDA=OFF -DSLUICE_VIEWER=OFF \
	      -DSLUICE_SANITIZE=address,undefined

sanitize: deps $(SANITIZE_BUILD)/CMakeCache.txt
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	cd $(SANITIZE_BUILD) && ctest --output-on-failure -j $(JOBS) -L sanitize

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD)
