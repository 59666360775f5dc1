# Makefile — every command a learner, an instructor or CI types. `make help` lists them.
#
# The learner's loop:   make check DAY=01      (SRC=solutions checks the reference solution)
# Everything:           make test              (what CI runs on every change)
# BACKEND=sim|cuda picks the backend (default: cuda when nvcc and a GPU are present, else sim).

SHELL := /bin/bash
.DEFAULT_GOAL := help
export BACKEND

DAY ?=
SRC ?= labs

# Compilers and flags come from the book's one build description, tools/build/config.sh
# (also read by tools/setup, tools/build/build-lab, lib/sim/tools/simcc and the test runners).
build/config.mk: tools/build/config.sh
	@mkdir -p build && bash tools/build/config.sh --make > $@
include build/config.mk

# initial-exec: the runtime is linked into the program (never a library loaded later), so its thread-locals
# (the running thread, its step budget, the access checks' recent allocations) sit at a fixed offset, read
# without a call to __tls_get_addr; every load and store of a kernel reads them.
SIM_CFLAGS = $(BOOK_CFLAGS) -fPIC -ftls-model=initial-exec -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0 -Ilib/sim/include -DSIM_DATA_DIR='"$(CURDIR)/data"'
LAB_CFLAGS = $(BOOK_CFLAGS) -fPIC
TOOL_CFLAGS = $(BOOK_CFLAGS)

SIM_SOURCES := $(wildcard lib/sim/*.c) lib/sim/fiber_x86_64.S lib/sim/fiber_aarch64.S
SIM_OBJECTS := $(patsubst lib/sim/%,build/lib/sim/%.o,$(SIM_SOURCES))
LAB_SOURCES := $(wildcard lib/lab/*.c)
LAB_OBJECTS := $(patsubst lib/lab/%.c,build/lib/lab/%.o,$(LAB_SOURCES))

# The simulator stands alone: its sources see only lib/sim (and its include/ folder).
build/lib/sim/%.c.o: lib/sim/%.c $(wildcard lib/sim/*.h lib/sim/include/*.h) build/config.mk | build/lib/sim
	$(BOOK_CC) $(SIM_CFLAGS) -c $< -o $@
build/lib/sim/%.S.o: lib/sim/%.S | build/lib/sim
	$(BOOK_CC) -c $< -o $@
build/lib/libsim.a: $(SIM_OBJECTS)
	rm -f $@ && ar rcs $@ $^
# Not in the archive: linked into each shared library of a lab's code (tools/build/build-lab).
build/lib/sim-code-module.o: lib/sim/module/code_module.c lib/sim/sim.h build/config.mk | build/lib/sim
	$(BOOK_CC) $(SIM_CFLAGS) -Ilib/sim -c $< -o $@
build/tools/cu2sim: lib/sim/tools/cu2sim.c build/config.mk | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -o $@ $<

build/lib/lab/%.o: lib/lab/%.c $(wildcard lib/lab/*.h) build/config.mk | build/lib/lab
	$(BOOK_CC) $(LAB_CFLAGS) -c $< -o $@
build/lib/liblab.a: $(LAB_OBJECTS)
	rm -f $@ && ar rcs $@ $^

# The build's own programs (tools/build) and the grader's (tools/grader).
build/tools/lab-policy: tools/build/lab-policy.c build/config.mk | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -o $@ $<
build/tools/grade-sandbox: tools/grader/grade-sandbox.c build/config.mk | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -o $@ $<
build/tools/verdict: tools/build/verdict.c build/lib/liblab.a | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -Ilib/lab -o $@ $< build/lib/liblab.a
build/tools/grade-report: tools/grader/grade-report.c build/lib/liblab.a | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -Ilib/lab -o $@ $< build/lib/liblab.a
build/tools/gpu-compare: tools/gpu/compare.c build/config.mk | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -o $@ $< -lm

build/lib/sim build/lib/lab build/tools:
	mkdir -p $@

# ---------------------------------------------------------------------------------
# The commands

.PHONY: help setup check test test-arm64 bench progress hint reset watch plots book nvcc-check clean libs release

# The student release (make release: tools/ci/release) has no solutions/, grader or test suite. There,
# help lists only the commands it has, and those that need what it leaves out depend on
# $(in_full_book), which says so instead of failing on a missing file.
STUDENT_RELEASE := $(if $(wildcard solutions),,yes)
book_only := $(if $(STUDENT_RELEASE),@true,@)
in_full_book := $(if $(STUDENT_RELEASE),not-in-the-student-release)
.PHONY: not-in-the-student-release
not-in-the-student-release:
	@echo "make $(MAKECMDGOALS) is not part of the student release: it needs what the release leaves out (the solutions, the grader, the course kit, the book's own tests; RELEASE.md lists them)." >&2; exit 2

help:
	@echo "From GPU to LLM Inference — a runnable book in thirty days$(if $(STUDENT_RELEASE), (the student release: RELEASE.md says what it leaves out))"
	@echo
	@echo "  make check DAY=01              build and check your lab for day 01 (plot and verdict)"
	$(book_only) echo "  make check DAY=01 SRC=solutions  the same for the reference solution"
	@echo "  make hint DAY=01               the next hint for day 01"
	@echo "  make watch DAY=01              check again every time you save"
	@echo "  make reset DAY=01              restore day 01's lab as shipped (your files are backed up)"
	@echo "  make progress                  where you are across the thirty days"
	$(book_only) echo "  make test                      everything: all solutions pass, all labs fail, library tests, nvcc, book"
	$(book_only) echo "  make test-arm64                the simulator, engine and every day built for arm64 Linux, run under qemu [TEST_DAYS=…]"
	$(book_only) echo "  make bench                     the speed figures (simulator, engine, grader) as name: value lines [PART=sim]"
	$(book_only) echo "  make plots                     redraw the reference plots from the solutions"
	@echo "  make book                      rebuild book.md and the HTML book, build/book/index.html"
	$(book_only) echo "  make grade SUBMISSIONS=DIR     grade a class in a sandbox [DAYS=01,02 HIDDEN=DIR OUT=DIR JOBS=N]"
	$(book_only) echo "  make gradescope                the Gradescope autograder zip [DAYS=… HIDDEN=DIR OUT=DIR]"
	$(book_only) echo "  make release                   the student release: build/release/*-student.tar.gz, without the solutions"
	$(book_only) echo "  make gpu-report                on an NVIDIA GPU: every lab's tests and timings, the simulator's counts against ncu [DAY=… OUT=DIR]"
	@echo "  make clean                     remove build/"
	@echo
	@echo "  BACKEND=sim|cuda overrides the backend; DAY takes 1, 01 or a name such as why-gpu."

setup:
	@tools/setup

libs: build/lib/libsim.a build/lib/sim-code-module.o build/lib/liblab.a build/tools/cu2sim build/tools/verdict

check:
	@tools/setup --quiet
	@$(MAKE) -s libs
	@tools/check "$(DAY)" "$(SRC)"

hint:
	@tools/hint "$(DAY)"

reset:
	@tools/reset "$(DAY)"

watch:
	@tools/setup --quiet
	@$(MAKE) -s libs
	@tools/watch "$(DAY)"

progress:
	@tools/progress

plots: $(in_full_book)
	@tools/setup --quiet
	@$(MAKE) -s libs
	@tools/ci/plots

book:
	@tools/ci/book
	$(book_only) tools/course/syllabus
	@tools/setup --quiet --all
	@tools/ci/html-book

nvcc-check: $(in_full_book)
	@tools/ci/nvcc-check

test: $(in_full_book)
	@tools/setup --all
	@$(MAKE) -s libs
	@tools/ci/test

# Not part of make test (it takes long under emulation): run it once per change to lib/.
test-arm64: $(in_full_book)
	@tools/ci/test-arm64

bench: $(in_full_book)
	@tools/setup --quiet --all
	@$(MAKE) -s libs
	@tools/ci/bench

# The instructor's side: tools/grader/grade (a gradebook from a folder of submissions, each built and run
# in a sandbox) and tools/grader/gradescope (the autograder zip). Both take their options as variables.
.PHONY: grade gradescope
grade: $(in_full_book)
	@tools/setup --quiet --grade
	@$(MAKE) -s libs
	@tools/grader/grade "$(SUBMISSIONS)" --days "$(DAYS)" --hidden "$(HIDDEN)" --out "$(OUT)" --jobs "$(JOBS)"

gradescope: $(in_full_book)
	@tools/setup --quiet --grade
	@tools/grader/gradescope --days "$(DAYS)" --hidden "$(HIDDEN)" --out "$(OUT)"

release: $(in_full_book)
	@tools/setup --quiet --all
	@tools/ci/release

# The book on a real GPU (tools/gpu/report): each day's solution built for the GPU present, its tests and
# timings, and the simulator's counts held against Nsight Compute's, in data/measured/GPU/DATE/.
.PHONY: gpu-report
gpu-report: $(in_full_book)
	@tools/setup --quiet
	@tools/gpu/report $(if $(DAY),--days "$(DAY)") $(if $(OUT),--out "$(OUT)") $(if $(filter command line,$(origin SRC)),--src "$(SRC)")

clean:
	rm -rf build

# ---------------------------------------------------------------------------------
# The toy Llama and the performance model (lib/llama, lib/perfmodel; tools/llama, tools/perfmodel).
# Built for this machine's CPU (-march=native where the compiler has it): the engine's speed
# is what the book measures and predicts.

NATIVE_FLAGS := $(if $(BOOK_CC),$(shell $(BOOK_CC) -march=native -x c -c /dev/null -o /dev/null 2>/dev/null && echo -march=native))
LLAMA_CFLAGS = $(BOOK_NATIVE_CFLAGS) $(NATIVE_FLAGS) -fPIC
LLAMA_OBJECTS := $(patsubst lib/llama/%.c,build/lib/llama/%.o,$(wildcard lib/llama/*.c))
PERFMODEL_OBJECTS := $(patsubst lib/perfmodel/%.c,build/lib/perfmodel/%.o,$(wildcard lib/perfmodel/*.c))

build/lib/llama/%.o: lib/llama/%.c $(wildcard lib/llama/*.h lib/simd/*.h) build/config.mk | build/lib/llama
	$(BOOK_CC) $(LLAMA_CFLAGS) -c $< -o $@
# runq.c's arithmetic rounds as runq.c does only if no multiply and add are fused into an FMA: the
# file says so with #pragma STDC FP_CONTRACT OFF, which gcc ignores, so the build says it too.
build/lib/llama/runq_arithmetic.o: LLAMA_CFLAGS += -ffp-contract=off
# The double-precision reference, too: where a compiler fuses its multiply-adds differs between
# targets (clang fused reference.c's differently for x86-64 and arm64), and unfused it gives the
# same bits on every machine (make test-arm64 compares them).
build/lib/llama/reference.o: LLAMA_CFLAGS += -ffp-contract=off
build/lib/libllama.a: $(LLAMA_OBJECTS)
	rm -f $@ && ar rcs $@ $^
build/lib/perfmodel/%.o: lib/perfmodel/%.c $(wildcard lib/perfmodel/*.h lib/llama/*.h lib/simd/*.h) lib/lab/table.h build/config.mk | build/lib/perfmodel
	$(BOOK_CC) $(LLAMA_CFLAGS) -I lib/llama -I lib/lab -c $< -o $@
build/lib/libperfmodel.a: $(PERFMODEL_OBJECTS)
	rm -f $@ && ar rcs $@ $^
build/tools/llama: lib/llama/tools/llama.c build/lib/libllama.a | build/tools
	$(BOOK_CC) $(LLAMA_CFLAGS) -I lib/llama -o $@ $< build/lib/libllama.a -lm
build/tools/perfmodel: lib/perfmodel/tools/perfmodel.c build/lib/libperfmodel.a build/lib/libllama.a build/lib/liblab.a | build/tools
	$(BOOK_CC) $(LLAMA_CFLAGS) -I lib/perfmodel -I lib/llama -I lib/lab -o $@ $< build/lib/libperfmodel.a \
	    build/lib/libllama.a build/lib/liblab.a -lm
build/lib/llama build/lib/perfmodel:
	mkdir -p $@

# The course kit (course/README.md): a question bank drawn from a seed, with answers from lib/perfmodel,
# as Moodle GIFT and CSV; and the syllabus, whose grading tables are made from tests/ and the rubrics.
.PHONY: questions syllabus
build/tools/questions: tools/course/questions.c build/lib/libperfmodel.a build/lib/libllama.a build/lib/liblab.a | build/tools
	$(BOOK_CC) $(TOOL_CFLAGS) -I lib/perfmodel -I lib/llama -I lib/lab -o $@ $< build/lib/libperfmodel.a \
	    build/lib/libllama.a build/lib/liblab.a -lm
questions: $(in_full_book) build/tools/questions
	@mkdir -p "$(or $(OUT),build/questions)"
	@build/tools/questions --seed "$(or $(SEED),1)" --gift "$(or $(OUT),build/questions)/questions.gift" \
	    --csv "$(or $(OUT),build/questions)/questions.csv"
syllabus: $(in_full_book)
	@tools/course/syllabus
