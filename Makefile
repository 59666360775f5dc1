# Makefile — every command a learner, an instructor or CI types. `make help` lists them.

SHELL := /bin/bash
.DEFAULT_GOAL := help

DAY ?=
SRC ?= labs
BACKEND ?=

CC := clang
SIM_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Wno-unused-parameter -fPIC -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=0
LAB_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -fPIC

SIM_SOURCES := $(wildcard lib/sim/*.c) lib/sim/fiber_x86_64.S
SIM_OBJECTS := $(patsubst lib/sim/%,build/lib/sim/%.o,$(SIM_SOURCES))
LAB_SOURCES := $(wildcard lib/lab/*.c)
LAB_OBJECTS := $(patsubst lib/lab/%.c,build/lib/lab/%.o,$(LAB_SOURCES))

build/lib/sim/%.c.o: lib/sim/%.c $(wildcard lib/sim/*.h) | build/lib/sim
	$(CC) $(SIM_CFLAGS) -c $< -o $@
build/lib/sim/%.S.o: lib/sim/%.S | build/lib/sim
	$(CC) -c $< -o $@
build/lib/libsim.a: $(SIM_OBJECTS)
	ar rcs $@ $^

build/lib/lab/%.o: lib/lab/%.c $(wildcard lib/lab/*.h) | build/lib/lab
	$(CC) $(LAB_CFLAGS) -c $< -o $@
build/lib/liblab.a: $(LAB_OBJECTS)
	ar rcs $@ $^

build/tools/%: tools/%.c | build/tools
	$(CC) -std=c11 -O2 -g -Wall -Wextra -D_GNU_SOURCE -o $@ $<

build/lib/sim build/lib/lab build/tools:
	mkdir -p $@

build/tools/verdict: tools/verdict.c build/lib/liblab.a | build/tools
	$(CC) -std=c11 -O2 -g -Wall -Wextra -o $@ $< build/lib/liblab.a
