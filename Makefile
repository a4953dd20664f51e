# kohaku build. `make` builds libkohaku and the CLI, `make test` runs every
# test, `make run` runs the default demo, `make bench` the benchmarks,
# `make fuzz` the fuzz targets briefly, `make bench BASE=COMMIT` this build's
# speed against COMMIT's. SAN=1 builds under ASan+UBSan into
# build-san/ so both trees can coexist. MPI=1 builds with Open MPI's mpicc
# into build-mpi/ (docs/mpi.md): the same programs, and `kohaku run`
# partitions a machine's meshes across the ranks of mpirun.
CC      ?= cc
SAN     ?= 0
MPI     ?= 0
# The build uses every core unless told otherwise: a -j on the command line
# or in MAKEFLAGS wins (make 4.3 hides the command line's from this test, but
# the command line overrides this default), a sub-make shares its parent's
# jobs, and `clean` keeps one job (beside other goals it must not race them).
ifeq ($(MAKELEVEL)$(filter clean,$(MAKECMDGOALS)),0)
ifeq ($(filter -j% --jobs%,$(MAKEFLAGS))$(shell printenv MAKEFLAGS | grep -E -e '(^| )(-j|--jobs)' -e '^[^ =-]*j'),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif
endif
# make test first installs the Debian packages the full test set uses
# (tools/deps.sh) that are missing, when it can: as root, with apt-get. It
# prints the apt-get line it runs. DEPS=0 leaves the system alone; the tests
# that need a missing package are then counted as skipped, and named.
DEPS    ?= 1
ifneq ($(filter test,$(MAKECMDGOALS)),)
ifneq ($(DEPS),0)
DEPS_LOG := $(shell sh tools/deps.sh install >&2)
ifneq ($(.SHELLSTATUS),0)
$(error tools/deps.sh could not install the packages the tests need (DEPS=0 skips this))
endif
endif
endif
ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT     := -O1 -g
override PGO := 0
else
BUILD   := build
SANFLAGS :=
OPT     := -O2 -g
# The CLI links with link-time optimisation: the simulation's steps call many
# small functions across files (wakes, rings, link space), and inlining them
# took ~7 % off bench (2). Fat objects keep the library, the tests and the
# shared library linking as before, without LTO. LTO=0 turns it off.
LTO     ?= 1
# The CLI is also built with GCC's profile-guided optimisation: its own copy
# of every object, instrumented, run on bench/train/run.sh's inputs, then
# compiled again with that profile (bench/train/run.sh, README). The
# library, the shared library and the tests keep the ordinary objects.
# PGO=0 turns it off; it is off by default for a compiler other than GCC.
ifeq ($(origin PGO),undefined)
PGO     := $(shell $(CC) -v 2>&1 | grep -q '^gcc version' && echo 1 || echo 0)
endif
endif
ifeq ($(LTO),1)
LTOFLAGS := -flto=auto -ffat-lto-objects
CLI_LTO  := -flto=auto
else
LTOFLAGS :=
CLI_LTO  :=
endif
ifeq ($(MPI),1)
CC      := mpicc
BUILD   := $(BUILD:build%=build-mpi%)
MPIFLAGS := -DKH_MPI=1
override PGO := 0
else
MPIFLAGS :=
endif
# The MPI build for `make test`, when Open MPI is there (under SAN=1 too, into
# build-mpi-san/: docs/mpi.md); the MPI tests skip, saying so, without it.
MPICC_FOUND := $(shell command -v mpicc 2>/dev/null)
CSTD     := -std=c11 -D_POSIX_C_SOURCE=200809L
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# -ffp-contract=off: a multiply and an add stay two roundings on every target
# (the float GEMM reference and the number formats are specified that way).
CFLAGS   := $(CSTD) $(OPT) -ffp-contract=off $(WARN) $(SANFLAGS) $(LTOFLAGS) $(MPIFLAGS) -Iinclude -I$(BUILD)/gen -Isrc -MMD -MP $(EXTRA_CFLAGS)
LDFLAGS  := $(SANFLAGS) $(EXTRA_LDFLAGS)
LDLIBS   := -lm
V        ?= 0
ifeq ($(V),1)
Q :=
else
Q := @
endif

GEN      := $(BUILD)/gen
ISA_SRCS := $(sort $(wildcard isa/*.isa))
ISA_HDRS := $(patsubst isa/%.isa,$(GEN)/kohaku/gen/%.h,$(ISA_SRCS))

# Stage 1: the table engine and its generator. These sources must not include
# generated headers: they are what generates them. src/isa/builtin.c reads
# the generated table embedding, so it belongs to the library only.
STAGE1_SRCS := $(sort $(filter-out src/isa/builtin.c,$(wildcard src/util/*.c src/isa/*.c)))
STAGE1_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(STAGE1_SRCS))

LIB_SRCS := $(sort $(filter-out $(STAGE1_SRCS),$(wildcard src/*.c src/*/*.c src/*/*/*.c src/*/*/*/*.c)))
ifneq ($(MPI),1)
LIB_SRCS := $(filter-out src/mpi/%,$(LIB_SRCS))
endif
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS)) $(STAGE1_OBJS) $(BUILD)/obj/gen/isa_embed.o
LIB      := $(BUILD)/libkohaku.a
# The shared library: the same sources compiled position-independent into
# their own tree; only kh_ symbols are exported (src/api/kohaku.map).
SO_NAME  := libkohaku.so.1
SO       := $(BUILD)/$(SO_NAME)
PIC_OBJS := $(patsubst $(BUILD)/obj/%.o,$(BUILD)/pic/%.o,$(LIB_OBJS))

CLI_SRCS := $(sort $(wildcard tools/kohaku/*.c))
CLI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS))
CLI      := $(BUILD)/kohaku

TEST_SRCS := $(sort $(wildcard tests/t_*.c))
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_SUPPORT := $(patsubst %.c,$(BUILD)/obj/%.o,$(sort $(wildcard tests/support/*.c)))

BENCH_SRCS := $(sort $(wildcard bench/*.c))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

# Programs for the node control processor (examples/rv32, docs/cpu.md),
# built with Debian's gcc-riscv64-unknown-elf when it is installed; the tests
# that run them say so and skip when it is not.
RV_CC     ?= riscv64-unknown-elf-gcc
RV_HAVE   := $(shell command -v $(RV_CC) >/dev/null 2>&1 && echo 1)
RV_CFLAGS := -march=rv32i -mabi=ilp32 -Os -ffreestanding -nostdlib -Wall -Wextra -Werror -Iexamples/rv32
RV_DEPS   := examples/rv32/crt0.S examples/rv32/kohaku_rv32.ld examples/rv32/kohaku_rv32.h
RV_PROGS  := $(patsubst examples/rv32/%.c,$(BUILD)/rv32/%.elf,$(sort $(wildcard examples/rv32/*.c)))

# Programs for the RV64 system core (examples/rv64, docs/rv64.md): flat_*.c
# for the flat harness, node_*.c for the node processor, pe_*.c for the
# mesh compute unit, each with its link script.
RV64_CFLAGS := -march=rv64ima_zicsr -mabi=lp64 -mcmodel=medany -O2 -ffreestanding -nostdlib -nostartfiles \
               -Wall -Wextra -Werror -Iexamples/rv64
RV64_DEPS   := examples/rv64/crt0.S examples/rv64/flat.ld examples/rv64/node.ld examples/rv64/pe.ld \
               examples/rv64/kohaku_rv64.h
RV64_PROGS  := $(patsubst examples/rv64/%.c,$(BUILD)/rv64/%.elf,$(sort $(wildcard examples/rv64/*.c)))
rv64_map     = $(if $(filter node_%,$(1)),-DEXIT_ADDR=0x20000 -T examples/rv64/node.ld,$(if $(filter pe_%,$(1)),-DEXIT_ADDR=0x20000 -T examples/rv64/pe.ld,-T examples/rv64/flat.ld))

.PHONY: all lib cli test test-engines run bench bench-mpi fuzz clean docs install rv32 rv64
# Keep intermediate objects (tests, benches) so rebuilds stay incremental.
.SECONDARY:
all: $(LIB) $(SO) $(CLI)
lib: $(LIB) $(SO)
cli: $(CLI)

$(BUILD)/isagen: $(STAGE1_OBJS) $(BUILD)/obj/tools/isagen.o
	@mkdir -p $(@D)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(GEN)/kohaku/gen/%.h: isa/%.isa $(BUILD)/isagen
	@mkdir -p $(@D)
	@echo "  GEN   $@"
	$(Q)$(BUILD)/isagen --emit c-header $< > $@.tmp && mv $@.tmp $@

# The list of tables as a file, rewritten only when it changes: a table that
# disappears (a branch switch) must regenerate the embedding too, and make
# sees only the prerequisites that exist.
ISA_LIST := $(GEN)/isa-list.txt
# The CLI's build mode the same way: PGO= or LTO= changed relinks the CLI.
CLI_MODE := $(BUILD)/cli-mode.txt
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p $(GEN) && echo '$(ISA_SRCS)' | cmp -s - $(ISA_LIST) || echo '$(ISA_SRCS)' > $(ISA_LIST))
$(shell echo 'PGO=$(PGO) LTO=$(LTO)' | cmp -s - $(CLI_MODE) || echo 'PGO=$(PGO) LTO=$(LTO)' > $(CLI_MODE))
endif

$(GEN)/isa_embed.c: $(ISA_SRCS) $(ISA_LIST) $(BUILD)/isagen
	@mkdir -p $(@D)
	@echo "  GEN   $@"
	$(Q)$(BUILD)/isagen --embed $(ISA_SRCS) > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/gen/isa_embed.o: $(GEN)/isa_embed.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# Stage-1 objects build without generated headers.
$(STAGE1_OBJS) $(BUILD)/obj/tools/isagen.o: $(BUILD)/obj/%.o: %.c
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# Everything else may include generated headers.
$(BUILD)/obj/%.o: %.c | $(ISA_HDRS)
	@mkdir -p $(@D)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# The generated headers are named here so make treats them as real targets
# (always present) rather than intermediates it may delete.
$(LIB): $(LIB_OBJS) | $(ISA_HDRS)
	@mkdir -p $(@D)
	@echo "  AR    $@"
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/pic/gen/isa_embed.o: $(GEN)/isa_embed.c
	@mkdir -p $(@D)
	@echo "  CC    $< (pic)"
	$(Q)$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/pic/%.o: %.c | $(ISA_HDRS)
	@mkdir -p $(@D)
	@echo "  CC    $< (pic)"
	$(Q)$(CC) $(CFLAGS) -fPIC -c -o $@ $<

$(SO): $(PIC_OBJS) src/api/kohaku.map
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(SO_NAME) -Wl,--version-script=src/api/kohaku.map \
	    -Wl,--no-undefined -o $@ $(PIC_OBJS) $(LDLIBS)
	$(Q)ln -sf $(SO_NAME) $(BUILD)/libkohaku.so

# make install PREFIX=DIR: headers, both libraries, kohaku.pc and the CLI.
PREFIX  ?= /usr/local
install: $(LIB) $(SO) $(CLI)
	@sh tools/install.sh "$(PREFIX)" "$(BUILD)" "$(SO_NAME)"

ifeq ($(PGO),1)
# The profile-guided CLI (PGO above). Its objects are only ever linked into a
# kohaku, so with LTO they are LTO-only (thin): half the compile work. Each
# is compiled from inside its tree ($(PGO_GEN) instrumented, $(PGO_USE) with
# the profile) under the same relative name: GCC names a static function's
# profile after the object's name, so the two must match. The instrumented
# CLI writes its counts beside its objects; the training's counts are copied
# beside $(PGO_USE)'s, where GCC looks for them. A source change retrains,
# and so recompiles all of $(PGO_USE).
PGO_GEN  := $(BUILD)/pgo-gen
PGO_USE  := $(BUILD)/pgo-use
PGO_SRCS := $(CLI_SRCS) $(LIB_SRCS) $(STAGE1_SRCS)
PGO_GEN_OBJS := $(patsubst %.c,$(PGO_GEN)/%.o,$(PGO_SRCS)) $(PGO_GEN)/gen/isa_embed.o
PGO_USE_OBJS := $(patsubst %.c,$(PGO_USE)/%.o,$(PGO_SRCS)) $(PGO_USE)/gen/isa_embed.o
# CFLAGS with absolute include directories, for a compile run elsewhere
PGO_CFLAGS := $(foreach f,$(CFLAGS),$(if $(filter -I%,$(f)),-I$(abspath $(f:-I%=%)),$(f))) $(if $(CLI_LTO),-fno-fat-lto-objects)
PGO_GEN_FLAGS := -fprofile-generate
# -fprofile-partial-training: what the training never ran is optimised as
# without a profile, not for size. -fno-tracer: its tail duplication turned
# the router's data-dependent selects into branches that mispredict (bench
# (5) 9 % slower with it). ws-permille 999: the training's rarer kinds (the
# router's FIFO push, a flit copy) stay hot, not optimised for size.
PGO_USE_FLAGS := -fprofile-use -fprofile-partial-training -fno-tracer --param=hot-bb-count-ws-permille=999
PGO_PROFILE := $(PGO_USE)/profile.stamp
# $(call pgo_cc,TREE,FLAGS): compile $< to $@ from inside TREE
pgo_cc = cd $(1) && $(CC) $(PGO_CFLAGS) $(2) -MT $@ -c -o $(@:$(1)/%=%) $(abspath $<)

$(PGO_GEN)/%.o: %.c | $(ISA_HDRS)
	@mkdir -p $(@D)
	@echo "  CC    $< (pgo-gen)"
	$(Q)$(call pgo_cc,$(PGO_GEN),$(PGO_GEN_FLAGS))

$(PGO_GEN)/gen/isa_embed.o: $(GEN)/isa_embed.c
	@mkdir -p $(@D)
	@echo "  CC    $< (pgo-gen)"
	$(Q)$(call pgo_cc,$(PGO_GEN),$(PGO_GEN_FLAGS))

$(PGO_GEN)/kohaku: $(PGO_GEN_OBJS)
	@echo "  LD    $@"
	$(Q)$(CC) $(OPT) $(CLI_LTO) $(PGO_GEN_FLAGS) $(LDFLAGS) -o $@ $(PGO_GEN_OBJS) $(LDLIBS)

# The training (bench/train/run.sh) from counts of zero; its counts replace
# the last ones beside $(PGO_USE)'s objects.
$(PGO_PROFILE): $(PGO_GEN)/kohaku $(sort $(wildcard bench/train/*))
	@echo "  TRAIN $(PGO_GEN)/kohaku"
	$(Q)mkdir -p $(PGO_USE) && find $(PGO_GEN) $(PGO_USE) -name '*.gcda' -exec rm -f {} +
	$(Q)sh bench/train/run.sh $(PGO_GEN)/kohaku $(PGO_GEN)/train
	$(Q)cd $(PGO_GEN) && find . -name '*.gcda' -exec cp --parents {} $(abspath $(PGO_USE)) \;
	$(Q)touch $@

# The router (src/noc) is compiled without the profile: its per-flit tests
# are written branch-free, and the profile still turned some back into
# branches that mispredict (bench (5) 4 % slower with it, the others equal).
$(PGO_USE)/src/noc/%.o: PGO_USE_FLAGS := -fno-tracer
$(PGO_USE)/%.o: %.c $(PGO_PROFILE) | $(ISA_HDRS)
	@mkdir -p $(@D)
	@echo "  CC    $< (pgo)"
	$(Q)$(call pgo_cc,$(PGO_USE),$(PGO_USE_FLAGS))

$(PGO_USE)/gen/isa_embed.o: $(GEN)/isa_embed.c $(PGO_PROFILE)
	@mkdir -p $(@D)
	@echo "  CC    $< (pgo)"
	$(Q)$(call pgo_cc,$(PGO_USE),$(PGO_USE_FLAGS))

$(CLI): $(PGO_USE_OBJS) $(CLI_MODE)
	@echo "  LD    $@ (pgo)"
	$(Q)$(CC) $(OPT) $(CLI_LTO) $(PGO_USE_FLAGS) $(LDFLAGS) -o $@ $(PGO_USE_OBJS) $(LDLIBS)
else
$(CLI): $(CLI_OBJS) $(LIB) $(CLI_MODE)
	@echo "  LD    $@"
	$(Q)$(CC) $(OPT) $(CLI_LTO) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)
endif

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_SUPPORT) $(LIB)
	@mkdir -p $(@D)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(TEST_SUPPORT) $(LIB) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB)
	@mkdir -p $(@D)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(BUILD)/rv32/%.elf: examples/rv32/%.c $(RV_DEPS)
	@mkdir -p $(@D)
	@echo "  RVCC  $@"
	$(Q)$(RV_CC) $(RV_CFLAGS) -T examples/rv32/kohaku_rv32.ld -o $@ examples/rv32/crt0.S $< -lgcc

$(BUILD)/rv64/%.elf: examples/rv64/%.c $(RV64_DEPS)
	@mkdir -p $(@D)
	@echo "  RVCC  $@"
	$(Q)$(RV_CC) $(RV64_CFLAGS) $(call rv64_map,$*) -o $@ examples/rv64/crt0.S $< -lgcc

rv64: $(if $(RV_HAVE),$(RV64_PROGS))
	@$(if $(RV_HAVE),true,echo "rv64: $(RV_CC) not found: install gcc-riscv64-unknown-elf to build examples/rv64")

rv32: $(if $(RV_HAVE),$(RV_PROGS))
	@$(if $(RV_HAVE),true,echo "rv32: $(RV_CC) not found: install gcc-riscv64-unknown-elf to build examples/rv32")

ifeq ($(MPI)$(if $(MPICC_FOUND),y,n),0y)
MPI_CLI := $(BUILD:build%=build-mpi%)/kohaku
.PHONY: $(MPI_CLI)
$(MPI_CLI):
	@$(MAKE) --no-print-directory MPI=1 SAN=$(SAN) cli
endif

test: $(TEST_BINS) $(CLI) $(SO) $(if $(RV_HAVE),$(RV_PROGS) $(RV64_PROGS)) $(MPI_CLI)
	@BUILD=$(BUILD) KOHAKU_MPI=$(MPI_CLI) sh tests/run.sh $(TEST_BINS)

# The engines' differential test: the test binaries on the per-cycle
# reference engine, every CLI command of tests/cli/ on both engines with
# its outputs compared (tests/support/engine_diff.sh), and the bench's
# workloads both ways (tests/engines.sh).
test-engines: $(TEST_BINS) $(CLI) $(SO) $(if $(RV_HAVE),$(RV_PROGS) $(RV64_PROGS)) $(MPI_CLI)
	@BUILD=$(BUILD) KOHAKU_MPI=$(MPI_CLI) ENGINE_DIFF=1 sh tests/run.sh $(TEST_BINS)

run: $(CLI)
	$(CLI) demo

# BASE=COMMIT: this build's speed against COMMIT's (bench/base.sh) instead.
bench: $(CLI) $(BENCH_BINS)
ifeq ($(BASE),)
	@BUILD=$(BUILD) sh bench/run.sh
else
	@BUILD=$(BUILD) sh bench/base.sh $(BASE)
endif

# A machine on MPI ranks against one process (issue 29, docs/mpi.md): the
# four-mesh GEMM and a session of rounds at 1 and 2 ranks, alternating.
# N=runs (3), R=rounds (400).
bench-mpi: $(CLI) $(MPI_CLI)
	@BUILD=$(BUILD) MPI_BUILD=$(BUILD:build%=build-mpi%) sh bench/mpi/run.sh

FUZZ_SECONDS ?= 10
# + : fuzz/run.sh's make shares this make's jobs
fuzz:
	+@FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh

# The field tables are generated from isa/*.isa into the build tree
# ($(BUILD)/docs/isa/), never into the sources: like the C headers, they
# are only ever produced from the tables.
docs: $(BUILD)/isagen
	@mkdir -p $(BUILD)/docs/isa
	@for f in $(ISA_SRCS); do n=$$(basename $$f .isa); \
	    $(BUILD)/isagen --emit markdown $$f > $(BUILD)/docs/isa/$$n.md.tmp && \
	    mv $(BUILD)/docs/isa/$$n.md.tmp $(BUILD)/docs/isa/$$n.md; done
	@echo "$(BUILD)/docs/isa/*.md generated"

clean:
	rm -rf build build-san build-fuzz build-mpi build-mpi-san

-include $(shell find $(BUILD)/obj $(BUILD)/pic $(BUILD)/pgo-gen $(BUILD)/pgo-use -name '*.d' 2>/dev/null)
