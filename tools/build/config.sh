# config.sh — the one description of how the book is built: the compilers, the flags of each
# kind of file, and the libraries the build links, each with the Debian package that provides it
# and a probe program that needs exactly what the build needs from it. Sourced by tools/setup
# (which checks each dependency by building its probe), tools/build/build-lab, lib/sim/tools/simcc,
# the test runners, and, through `tools/build/config.sh --make` (build/config.mk), the Makefile.
# Add a flag or a library here and every part of the book gets it, together with its check.

book_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

BOOK_CC=clang
BOOK_CXX=clang++
# Every C file of the book — libraries, drivers, tests and the learner's own files — gets the same
# warnings, so a learner sees what the libraries' authors see.
BOOK_WARNINGS="-Wall -Wextra -Wno-unused-parameter"
BOOK_CFLAGS="-std=c11 -O2 -g $BOOK_WARNINGS -D_GNU_SOURCE"
BOOK_CXXFLAGS="-std=c++17 -O2 -g $BOOK_WARNINGS -D_GNU_SOURCE"
# Linking with gold (binutils, which clang needs): four times less work than the default ld.bfd for a
# program linked with the simulator, and every lab, test program and wrong variant is such a link.
BOOK_LDFLAGS="-fuse-ld=gold"
# The engine (lib/llama, lib/perfmodel) is built for this machine's CPU: its speed is measured.
BOOK_NATIVE_CFLAGS="-std=c11 -O3 -g $BOOK_WARNINGS -D_GNU_SOURCE -pthread"
# A .cu file on the simulator: -fsanitize-coverage makes every load and store call the simulator
# first (lib/sim/access.c) and every basic block report itself (SIMT efficiency); -O1 without
# vectorisation keeps one CUDA access one CPU access. -gline-tables-only: the file and line of each
# address, all the simulator's messages need (addr2line, inlined calls too), at 17 % less compile
# time than full debug information (simcc -g gives that, for a debugger's view of variables), in
# DWARF 4: binutils 2.40's addr2line reads a DWARF 5 line table whose function starts in the
# default file (a kernel in a header, on arm64) as the .cu's, a wrong file in every message. -fPIC:
# a lab's edited files are linked into a shared library of their own (LAB_CODE_CFLAGS below), and a
# .cu file compiles one way wherever it goes; -fno-plt: that library calls the simulator (in the
# program) through its GOT, not a PLT stub as well; initial-exec: the library is loaded with the
# program, so it reads the simulator's thread-local variables (threadIdx, blockIdx: lib/sim/sim.h) at
# a fixed offset instead of through a call each time.
SIM_CU_FLAGS="-std=c++17 -O1 -fno-vectorize -fno-slp-vectorize -fstack-clash-protection -fPIC -fno-plt -ftls-model=initial-exec \
-fsanitize-coverage=bb,trace-pc-guard,trace-loads,trace-stores -mllvm -sanitizer-coverage-prune-blocks=0 \
-gline-tables-only -gdwarf-4 -Wall -Wno-unused-function -Wno-unused-variable -Wno-unused-parameter"
# A lab's edited .c files on the simulator (tools/build/build-lab): they are linked into a shared
# library that only the test workers load, never the test runner, which reports the verdicts.
# -fwrapv: an int that overflows wraps, as it does on the machine, so a learner's 32-bit offset or
# count past 2^31 gives the wrong answer the checks look for, instead of one the optimiser happened
# to widen to 64 bits (undefined behaviour that passes by luck at -O2).
LAB_CODE_CFLAGS="-fPIC -fwrapv"
# A .cu file on a real GPU (NVCC_ARCH overrides the architecture).
NVCC_FLAGS="-O2 -lineinfo"

# The libraries the build links. Each: the flags, the Debian package, and a probe (a C program
# that uses the library the way the book does, compiled and linked with exactly these flags).
OPENBLAS_LIBS="-lopenblas"
CRITERION_LIBS="-lcriterion"
# --as-needed: a program that never calls cuBLAS does not load OpenBLAS (8 ms a process on this
# kind of machine, and Criterion starts a process a test).
SIM_RUNTIME_LIBS="-Wl,--as-needed $OPENBLAS_LIBS -lm -lpthread -ldl"
CUDA_RUNTIME_LIBS="-lcublas -lcublasLt"

# name | Debian package | kind (library, tool) | probe | what needs it: check (make check and a learner's
# other commands), grade (the grader's sandbox and archives: tools/setup --grade), book (the HTML
# book: tools/setup --all, which make test, book, release and bench use) or arm64 (make test-arm64:
# tools/setup --arm64), so that a learner's first make check installs no sandbox and no browser |
# the same software's package on Homebrew, on dnf (Fedora) and on pacman (Arch), "-" where it has
# none. Those three are printed for a learner to run, never run: only the Debian path is tested.
book_dependencies=(
    "clang|clang|tool|probe_c_compiler|check|llvm|clang|clang"
    "clang++|clang|tool|probe_cxx_compiler|check|llvm|clang|clang"
    "gold|binutils|tool|probe_gold|check|-|binutils-gold|binutils"
    "OpenBLAS|libopenblas-dev|library|probe_openblas|check|openblas|openblas-devel|openblas"
    "Criterion|libcriterion-dev|library|probe_criterion|check|criterion|criterion-devel|criterion"
    "gnuplot|gnuplot-nox|tool|probe_gnuplot|check|gnuplot|gnuplot|gnuplot"
    "make|make|tool|probe_make|check|make|make|make"
    "bubblewrap|bubblewrap|tool|probe_bwrap|grade|-|bubblewrap|bubblewrap"
    "unzip|unzip|tool|probe_unzip|grade|unzip|unzip|unzip"
    "zip|zip|tool|probe_zip|grade|zip|zip|zip"
    "pandoc|pandoc|tool|probe_pandoc|book|pandoc|pandoc|pandoc"
    "Chromium|chromium|tool|probe_chromium|book|chromium|chromium|chromium"
    "shellcheck|shellcheck|tool|probe_shellcheck|book|shellcheck|ShellCheck|shellcheck"
    "cppcheck|cppcheck|tool|probe_cppcheck|book|cppcheck|cppcheck|cppcheck"
    "gcc|gcc|tool|probe_gcc|book|gcc|gcc|gcc"
    "a CJK font|fonts-wqy-microhei|tool|probe_cjk_font|book|font-wqy-microhei|wqy-microhei-fonts|wqy-microhei"
    "qemu for arm64|qemu-user-static|tool|probe_qemu_arm64|arm64|-|-|-"
    "arm64 binutils|binutils-aarch64-linux-gnu|tool|probe_arm64_binutils|arm64|-|-|-"
)

# The probes write into $probe_dir and exit 0 when the dependency works as the build uses it.
# PROBE_SYSROOT (tests only) points the compiler at another root, where a package may be absent.
# PROBE_TARGET compiles for another machine and PROBE_RUN runs what it made there (the arm64 root).
probe_cc() { "$BOOK_CC" ${PROBE_TARGET:+--target="$PROBE_TARGET"} ${PROBE_SYSROOT:+--sysroot="$PROBE_SYSROOT"} "$@"; }
probe_run() { ${PROBE_RUN:-} "$@"; }
probe_c_compiler() {
    printf 'int main(void) { return 0; }\n' > "$probe_dir/c.c" &&
        probe_cc -std=c11 -o "$probe_dir/c" "$probe_dir/c.c" && probe_run "$probe_dir/c"
}
probe_cxx_compiler() {
    printf '#include <vector>\n#include <cstdio>\nint main() { std::vector<int> v(2); return (int)v.size() - 2; }\n' > "$probe_dir/cxx.cpp" &&
        "$BOOK_CXX" ${PROBE_TARGET:+--target="$PROBE_TARGET"} ${PROBE_SYSROOT:+--sysroot="$PROBE_SYSROOT"} \
            -std=c++17 $BOOK_LDFLAGS -o "$probe_dir/cxx" "$probe_dir/cxx.cpp" && probe_run "$probe_dir/cxx"
}
probe_gold() {   # BOOK_LDFLAGS links with gold
    printf 'int main(void) { return 0; }\n' > "$probe_dir/g.c" &&
        probe_cc $BOOK_LDFLAGS -o "$probe_dir/g" "$probe_dir/g.c"
}
probe_openblas() {   # lib/sim/cublas.c calls cblas_sgemm and cblas_sgemv from -lopenblas
    cat > "$probe_dir/openblas.c" <<'C'
void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
void openblas_set_num_threads(int);   /* OpenBLAS's own: the reference BLAS does not have it */
int main(void) { float a = 2, b = 3, c = 0; openblas_set_num_threads(1);
                 cblas_sgemm(102, 111, 111, 1, 1, 1, 1.0f, &a, 1, &b, 1, 0.0f, &c, 1); return c != 6.0f; }
C
    probe_cc -std=c11 -o "$probe_dir/openblas" "$probe_dir/openblas.c" $OPENBLAS_LIBS && probe_run "$probe_dir/openblas"
}
probe_criterion() {
    printf '#include <criterion/criterion.h>\nTest(probe, runs) { cr_assert(1); }\n' > "$probe_dir/criterion.c" &&
        probe_cc -std=c11 -o "$probe_dir/criterion" "$probe_dir/criterion.c" $CRITERION_LIBS &&
        probe_run "$probe_dir/criterion" --list > /dev/null
}
probe_gnuplot() { gnuplot -e 'set terminal pngcairo; set output "/dev/null"; plot x' ; }   # the plots' terminal
probe_make() { make --version; }
probe_bwrap() { bwrap --version; }
probe_unzip() { unzip -v; }
probe_zip() { zip -v; }
# The HTML book (tools/ci/html-book): pandoc turns GitHub markdown into HTML, headless Chromium
# prints the PDF and takes the test's screenshots, and the Chinese terms need a font that has them.
probe_pandoc() { printf '**x**\n' | pandoc -f gfm -t html5 | grep -q '<strong>x</strong>'; }
probe_chromium() { chromium --headless --version; }
probe_cjk_font() { fc-list :lang=zh family | grep -q .; }
# make test's second opinions on the code (tools/ci/lint): each run on a file with one finding it must report.
probe_shellcheck() { printf '#!/bin/bash\necho $1\n' > "$probe_dir/s.sh" && [[ $(shellcheck -f gcc "$probe_dir/s.sh") == *SC2086* ]]; }
probe_cppcheck() {
    printf 'int f(void) { int a[2]; return a[2]; }\n' > "$probe_dir/c.c" &&
        [[ $(cppcheck --quiet --template='{id}' "$probe_dir/c.c" 2>&1) == *arrayIndexOutOfBounds* ]]
}
probe_gcc() {
    printf 'int f(void) { int unused; return 0; }\n' > "$probe_dir/g.c" &&
        [[ $(gcc -Wall -c "$probe_dir/g.c" -o "$probe_dir/g.o" 2>&1) == *Wunused-variable* ]]
}

# make test-arm64 (tools/ci/test-arm64): the book built for arm64 Linux by the same clang, against an
# arm64 Debian root of the book's own (tools/build/arm64-root: Debian's arm64 packages unpacked into
# build/arm64/root, this machine's packages untouched), and run by qemu's user-mode emulator. Here:
# only the two tools that needs from this machine. The root's libraries are probed as it is made.
ARM64_TARGET=aarch64-linux-gnu
ARM64_QEMU=qemu-aarch64-static
ARM64_PACKAGES="libc6-dev libstdc++-12-dev libgcc-12-dev libopenblas-dev libcriterion-dev"
probe_qemu_arm64() { "$ARM64_QEMU" --version; }
probe_arm64_binutils() { "$ARM64_TARGET-ld.gold" --version && "$ARM64_TARGET-addr2line" --version; }

# `config.sh --make`: the same flags as make variables (build/config.mk, included by the Makefile).
if [[ ${BASH_SOURCE[0]} == "$0" && ${1:-} == --make ]]; then
    for var in BOOK_CC BOOK_CXX BOOK_CFLAGS BOOK_CXXFLAGS BOOK_LDFLAGS BOOK_NATIVE_CFLAGS; do
        printf '%s := %s\n' "$var" "${!var}"
    done
fi
