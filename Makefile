# Thin wrapper around Meson.  On a fresh Debian machine, as root:
#   make demo    install what is missing, build, show cidkit working
#   make check   install what is missing, build, run every test
#                (normal, ASan+UBSan, and TSan builds); last line
#                "N passed, N failed"
#   make         build only (build/cidkit)
#   make bench   all benchmarks on this machine
#   make plots   redraw docs/figures/*.svg from fresh runs (matplotlib;
#                the simulator's are byte-stable, the benchmarks' are
#                this machine now: short runs, dated)
#   make mutants source mutants of lib/cid judged by cidkit check alone
#                (scripts/mutate.py; MUTANTS_SAMPLE=N per file, default
#                all); writes the score into docs/check-results.md
#   make fuzz    libFuzzer on every tests/fuzz harness, FUZZ_SECONDS each
#                (default 60; clang); see docs/fuzz.md
#   make check-kernels  the guest suite on every kernel line (6.1 to 7.3,
#                sid, experimental) x x86_64 and arm64 under QEMU
#                (docs/kernels.md; make check runs sid and bookworm)
#   make hunt    cidkit stress in every kernel x arch x vCPUs x workload
#                x seed, one guest per job (scripts/hunt.py; HUNT_JOBS=N
#                guests at once with GNU parallel, default 1; HUNT_ARGS
#                narrows it, e.g. "--kernels 6.19.8 --arches x86_64");
#                docs/hunt.md
#   make check-kernel-code  every checker scenario on the kernel's own
#                mm_cid code beside the port, and with the 2026-03 fixes
#                reverted (docs/check-kernel.md; about 8 minutes)

BUILD ?= build
FUZZ_SECONDS ?= 60

HUNT_JOBS ?= 1
HUNT_OUT ?= $(BUILD)/hunt

.PHONY: all bootstrap demo check check-kernels check-kernel-code hunt bench plots fuzz mutants clean

all: bootstrap
	@scripts/build.sh $(BUILD)

bootstrap:
	@scripts/bootstrap.sh

demo: all
	@scripts/demo.sh $(BUILD)/cidkit

check: bootstrap
	@scripts/check.sh

mutants: all
	@python3 scripts/mutate.py run $(if $(MUTANTS_SAMPLE),--sample $(MUTANTS_SAMPLE)) \
		--build $(BUILD) --out $(BUILD)/mutants.json
	@python3 scripts/mutate.py report $(BUILD)/mutants.json --doc docs/check-results.md

check-kernels: bootstrap
	@scripts/check-kernels.sh

# every scenario on the kernel's own mm_cid code beside the port, with the
# 2026-03 fixes reverted (docs/check-kernel.md; about 8 minutes)
check-kernel-code: all
	@scripts/check-kernel-matrix $(BUILD)/cidkit --history

hunt: bootstrap
	@python3 scripts/hunt.py jobs --out $(HUNT_OUT) $(HUNT_ARGS) | \
		if command -v parallel >/dev/null; then parallel -j$(HUNT_JOBS) --line-buffer; else sh; fi
	@python3 scripts/hunt.py table $(HUNT_OUT)

bench: all
	@scripts/bench.sh $(BUILD)/cidkit

plots: all
	@scripts/plots.sh $(BUILD)/cidkit docs/figures

fuzz: bootstrap
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz.sh

clean:
	rm -rf build build-asan build-tsan build-fuzz build-guest-x86_64 build-guest-arm64
