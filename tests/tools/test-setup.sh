#!/usr/bin/env bash
# test-setup.sh — tools/setup finds what is missing by using it, as the build does, and names it.
# A fake root (symbolic links to this machine's, with OpenBLAS's libraries taken out but the
# reference BLAS's cblas.h left in), a dpkg database without a package, and a PATH without a tool
# each hide one dependency; setup must name it, say it would install it, and refuse to go on
# where it cannot install. Prints "ok ..." per check; exits non-zero on the first failure.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }

output=$(tools/setup --all --dry-run 2>&1) || bad "setup --all --dry-run finds something missing on this machine:"$'\n'"$output"
ok "setup --dry-run: everything the book needs is here and works"

# A root without OpenBLAS, where a header probe would still find a cblas.h.
multiarch=$(clang -print-multiarch)
fake=$tmp/root
mkdir -p "$fake/usr/lib"
ln -s /usr/include "$fake/usr/include"
ln -s /usr/lib/gcc "$fake/usr/lib/gcc"
[[ -e /usr/lib64 ]] && ln -s /usr/lib64 "$fake/usr/lib64"
ln -s usr/lib "$fake/lib" && ln -s usr/lib64 "$fake/lib64"
cp -as "/usr/lib/$multiarch" "$fake/usr/lib/$multiarch"
rm -rf "$fake/usr/lib/$multiarch"/libopenblas* "$fake/usr/lib/$multiarch"/openblas*
find /usr/include -name cblas.h -print -quit | grep -q . || bad "the test needs some cblas.h in /usr/include (the header probe's bait)"
output=$(PROBE_SYSROOT=$fake tools/setup --dry-run 2>&1) && bad "a root without libopenblas passes setup:"$'\n'"$output"
grep -q "OpenBLAS (libopenblas-dev): a program that links it" <<< "$output" || bad "OpenBLAS is not named as missing:"$'\n'"$output"
grep -q "would run: apt-get install -y --no-install-recommends libopenblas-dev$" <<< "$output" ||
    bad "setup would not install exactly libopenblas-dev:"$'\n'"$output"
ok "a missing OpenBLAS is found by linking, not by cblas.h, and would be installed"

# A dpkg database that does not list Criterion: its files may be there, the package is not.
if command -v dpkg-query > /dev/null; then
    admin=$tmp/dpkg
    mkdir -p "$admin" && cp -r /var/lib/dpkg/. "$admin/" 2>/dev/null
    awk -v RS= -v ORS='\n\n' '!/^Package: libcriterion-dev\n/' /var/lib/dpkg/status > "$admin/status"
    output=$(SETUP_DPKG_ADMINDIR=$admin tools/setup --dry-run 2>&1) && bad "a package dpkg does not list passes setup"
    grep -q "Criterion (libcriterion-dev): dpkg does not list libcriterion-dev as installed" <<< "$output" ||
        bad "an uninstalled Criterion is not named:"$'\n'"$output"
    ok "a package that dpkg does not list as installed is missing, whatever files are there"
fi

stripped_path() {   # DIR PATTERN: a folder of links to every command on PATH except those matching PATTERN
    local dir=$1 pattern=$2 tool name
    mkdir -p "$dir"
    for tool in /usr/local/bin/* /usr/bin/* /usr/sbin/* /bin/*; do
        name=$(basename "$tool")
        [[ $name == $pattern || -e $dir/$name ]] || ln -s "$tool" "$dir/$name"
    done
}

# A PATH without gnuplot.
stripped_path "$tmp/bin" 'gnuplot*'
output=$(PATH=$tmp/bin tools/setup --dry-run 2>&1) && bad "a PATH without gnuplot passes setup"
grep -q "gnuplot (gnuplot-nox): it does not run" <<< "$output" || bad "a missing gnuplot is not named:"$'\n'"$output"
ok "a tool that does not run is missing"

# A learner's make check needs no browser; make test and make book (tools/setup --all) do.
stripped_path "$tmp/no-chromium" 'chromium*'
PATH=$tmp/no-chromium tools/setup --dry-run > "$tmp/learner.log" 2>&1 || bad "without Chromium, a learner's setup fails:"$'\n'"$(cat "$tmp/learner.log")"
output=$(PATH=$tmp/no-chromium tools/setup --all --dry-run 2>&1) && bad "a PATH without Chromium passes setup --all"
grep -q "Chromium (chromium): it does not run" <<< "$output" && grep -q "would run: apt-get install -y --no-install-recommends chromium$" <<< "$output" ||
    bad "setup --all does not name the missing Chromium:"$'\n'"$output"
ok "Chromium is needed by tools/setup --all (make test, book), not by a learner's make check"

# Where nothing can be installed (no apt-get), setup names the packages and make check builds nothing.
stripped_path "$tmp/no-apt" 'apt-get'
output=$(PATH=$tmp/no-apt PROBE_SYSROOT=$fake make -s check DAY=01 2>&1) && bad "make check went on without OpenBLAS"
grep -q "not a Debian-like system (no apt-get), so nothing was installed and nothing built" <<< "$output" &&
    grep -q "install these .*: libopenblas-dev$" <<< "$output" || bad "without apt-get, setup does not say what to install:"$'\n'"$output"
grep -q "== Day 01" <<< "$output" && bad "make check built the lab although setup failed:"$'\n'"$output"
ok "without apt-get: the missing package is named and make check stops before building"

# Without apt-get but with another package manager: the system is named, and its own install line
# printed (never run): Fedora's dnf here, with Fedora's name for OpenBLAS.
mkdir -p "$tmp/dnf" && cp -as "$tmp/no-apt/." "$tmp/dnf/" 2> /dev/null
printf '#!/bin/sh\necho "dnf must not be run by setup" > %s/dnf-ran\n' "$tmp" > "$tmp/dnf/dnf"
chmod +x "$tmp/dnf/dnf"
printf 'NAME="Fedora Linux"\nPRETTY_NAME="Fedora Linux 40 (Workstation Edition)"\n' > "$tmp/os-release"
output=$(PATH=$tmp/dnf PROBE_SYSROOT=$fake SETUP_OS_RELEASE=$tmp/os-release tools/setup 2>&1) &&
    bad "setup went on without OpenBLAS and apt-get"
grep -q "found Fedora Linux 40 (Workstation Edition), with dnf install -y" <<< "$output" &&
    grep -q "install them with: sudo dnf install -y openblas-devel$" <<< "$output" ||
    bad "without apt-get, with dnf, setup does not name the system and dnf's line:"$'\n'"$output"
[[ -e $tmp/dnf-ran ]] && bad "setup ran dnf: the other systems' lines are printed, never run"
ok "without apt-get, with dnf: the system is named and dnf's install line printed, not run"

# Not root and no sudo: the command to run as root.
if ((EUID == 0)) && command -v setpriv > /dev/null; then
    stripped_path "$tmp/no-sudo" 'sudo'
    output=$(PATH=$tmp/no-sudo PROBE_SYSROOT=$fake setpriv --reuid=65534 --regid=65534 --clear-groups tools/setup 2>&1) &&
        bad "setup as a user without sudo succeeded without OpenBLAS"
    grep -q "as root, run: apt-get update && apt-get install -y --no-install-recommends libopenblas-dev" <<< "$output" ||
        bad "without root or sudo, setup does not give the command:"$'\n'"$output"
    ok "not root and no sudo: setup names the command to run as root"
fi
