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
ifeq ($(SAN),1)
BUILD   := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT     := -O1 -g
else
BUILD   := build
SANFLAGS :=
OPT     := -O2 -g
# The CLI links with link-time optimisation: the simulation's steps call many
# small functions across files (wakes, rings, link space), and inlining them
# took ~7 % off bench (2). Fat objects keep the library, the tests and the
# shared library linking as before, without LTO. LTO=0 turns it off.
LTO     ?= 1
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
else
MPIFLAGS :=
endif
# The MPI build for `make test`, when Open MPI is there (not under SAN: see
# docs/mpi.md); the MPI tests skip, saying so, without it.
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

.PHONY: all lib cli test run bench fuzz clean docs install rv32
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
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell mkdir -p $(GEN) && echo '$(ISA_SRCS)' | cmp -s - $(ISA_LIST) || echo '$(ISA_SRCS)' > $(ISA_LIST))
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

$(CLI): $(CLI_OBJS) $(LIB)
	@echo "  LD    $@"
	$(Q)$(CC) $(OPT) $(CLI_LTO) $(LDFLAGS) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

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

rv32: $(if $(RV_HAVE),$(RV_PROGS))
	@$(if $(RV_HAVE),true,echo "rv32: $(RV_CC) not found: install gcc-riscv64-unknown-elf to build examples/rv32")

ifeq ($(SAN)$(MPI)$(if $(MPICC_FOUND),y,n),00y)
MPI_CLI := build-mpi/kohaku
.PHONY: $(MPI_CLI)
$(MPI_CLI):
	@$(MAKE) --no-print-directory MPI=1 cli
endif

test: $(TEST_BINS) $(CLI) $(SO) $(if $(RV_HAVE),$(RV_PROGS)) $(MPI_CLI)
	@BUILD=$(BUILD) KOHAKU_MPI=$(MPI_CLI) sh tests/run.sh $(TEST_BINS)

run: $(CLI)
	$(CLI) demo

# BASE=COMMIT: this build's speed against COMMIT's (bench/base.sh) instead.
bench: $(CLI) $(BENCH_BINS)
ifeq ($(BASE),)
	@BUILD=$(BUILD) sh bench/run.sh
else
	@BUILD=$(BUILD) sh bench/base.sh $(BASE)
endif

FUZZ_SECONDS ?= 10
fuzz:
	@FUZZ_SECONDS=$(FUZZ_SECONDS) sh fuzz/run.sh

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

-include $(shell find $(BUILD)/obj $(BUILD)/pic -name '*.d' 2>/dev/null)
