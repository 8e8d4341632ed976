# diskdump: kernel patch series, tools and tests.
#   make demo     build, boot, panic, dump, reboot, savecore, open the dump
#   make check    everything, ending with "N passed, N failed"
#   make scenario NAME=dump-sysrq   one QEMU scenario
BUILD   ?= build
KSRC    := $(BUILD)/src
KOBJ    := $(BUILD)/obj
# the test kernel: Debian's configuration (scripts/debian-config.sh) with
# its modules off, plus the fragment
KBASE   := $(BUILD)/debian-base.config
FRAGS   := configs/debian-test.config
KERNEL  := $(KOBJ)/arch/x86/boot/bzImage
INITRD  := $(BUILD)/initramfs.cpio.gz

.PHONY: all deps tree kernel tools initramfs unit lint scenarios scenario check demo debs debs-kernel series series-check series-verify bench bench-kdump bench-parts bench-side clean

all: kernel tools

deps:
	@scripts/deps.sh

tree: deps
	@scripts/prepare-tree.sh $(KSRC)

kernel: tree
	@scripts/debian-config.sh base $(KBASE)
	@scripts/build-kernel.sh --base $(KBASE) $(KSRC) $(KOBJ) $(FRAGS)

tools:
	@$(MAKE) -s -C tools/diskdump

initramfs: deps
	@scripts/mk-initramfs.sh $(INITRD)

unit: deps
	@$(MAKE) -s -C tests/unit check

lint: kernel
	@scripts/lint.sh $(KSRC) $(KOBJ)

scenarios: kernel initramfs tools
	@tests/run-scenarios.sh

scenario: kernel initramfs tools
	@tests/run-scenarios.sh $(NAME)

check: deps
	@scripts/check.sh

demo: kernel initramfs tools
	@scripts/demo.sh

# Debian packages in build/debs: diskdump-tools (debhelper, lintian clean),
# and with debs-kernel the patched kernel too (bindeb-pkg)
debs: deps
	@scripts/debs.sh

debs-kernel: kernel
	@KERNEL=1 scripts/debs.sh

# the upstream series: git format-patch output in build/series/out
series: deps
	@scripts/series.sh mail $(BUILD)/series/out

# ... and build the kernel after each of its patches
series-check: kernel
	@scripts/series.sh mail $(BUILD)/series/out --build

# patches/, patches/files and the mailed series agree (also in make lint)
series-verify: deps
	@scripts/series.sh check

# benchmarks, not part of make check
bench: deps
	@bench/timers.sh
	@bench/side.sh
	@bench/kdump.sh

# diskdump and kdump side by side, lsi and NVMe (BENCH_SIZES="512 2048 4096")
bench-side: deps
	@bench/side.sh

# only diskdump against kdump (BENCH_SIZES="512 2048" by default)
bench-kdump: deps
	@bench/kdump.sh

# only the level-31 partition-size sweep (BENCH_PARTS="600 2048 8192")
bench-parts: deps
	@BENCH_PARTS_ONLY=1 bench/kdump.sh

clean:
	rm -rf $(BUILD)
	$(MAKE) -s -C tools/diskdump clean
