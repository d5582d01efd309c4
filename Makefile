# Shortcuts for the scripts.  A plain "make" only lists them (make help); the kernel
# targets (run, shell, check, kernel, ...) install what they need with apt and build a
# kernel, the library targets need only a C compiler.
.DEFAULT_GOAL := help
.PHONY: help lib library-check cli run shell check check-series check-configs kernel bench-kernel tree export-series clean

help:           ## list these targets (the default goal)
	@printf 'usage: make TARGET (from the top of the repository; see README.md)\n\n'
	@f='$(MAKEFILE_LIST)'; f=$${f# }; awk -F':[^#]*## ' \
		'/^[A-Za-z0-9_.-]+:[^=]*## /{ printf "  %-15s %s\n", $$1, $$2 }' "$$f"

lib:            ## build libpidfdspawn (library/build/), no root, no kernel
	$(MAKE) -C library
library-check:  ## build the library and run its host tests (make -C library check), no root
	$(MAKE) -C library check
cli:            ## build the pidfd-spawn command (cli/build/pidfd-spawn)
	$(MAKE) -C cli

run:            ## build the patched kernel, boot it, spawn a process through the builder
	demo/run
shell:          ## same kernel, interactive shell in the VM
	demo/run --shell
check:          ## build everything, run every suite in the VM, print the totals
	tests/check
check-series:   ## every patch on its own: compile what it touches, checkpatch --strict
	workspace/check-series
check-configs:  ## the series in small configs (no CGROUPS, MULTIUSER, AUDIT, ...), i386, arm64 + selftests
	workspace/check-configs
kernel:         ## build the test kernel only
	workspace/build-kernel test
bench-kernel:   ## build the benchmark kernel (no debugging)
	workspace/build-kernel bench
tree:           ## extract the source and apply the series (build/linux)
	workspace/prepare-tree
export-series:  ## write build/linux's commits back into series/
	workspace/export-series
clean:          ## remove build/ (kernel tree, outputs, VM logs); refuses unexported kernel commits (FORCE=1 overrides)
	workspace/clean $(if $(FORCE),--force)

.PHONY: bench bench-quick
bench:          ## spawn benchmarks on the bench kernel in QEMU; table + plots in bench/results
	bench/run
bench-quick:    ## a short benchmark run (~25 s in the VM, plus the bench kernel when missing); build/bench/quick
	bench/run --quick

.PHONY: mutation fuzz
mutation:       ## mutation check of the library: every mutant in tests/mutation/mutants must be killed (~1-3 min)
	tests/mutation/run
N ?= 100000
fuzz:           ## differential fuzzer in the VM on the test kernel: N requests (default 100000), glibc vs builder and fallback
	tests/host.d/fuzz-build >/dev/null
	vm/vm-run --timeout $$(( $(N) + 900 )) -- env FUZZ_COUNT=$(N) FUZZ_BACKEND=both tests/guest.d/fuzz
