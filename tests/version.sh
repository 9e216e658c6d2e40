#!/bin/sh
# SPDX-License-Identifier: MIT
#
# One version everywhere (issue 13). The truth is the three
# KFLUSH_VERSION_* lines of include/kflush.h, read here with sed; then
#   - configure's PACKAGE_VERSION (config.h) and libkflush.pc's Version
#     (what pkg-config --modversion libkflush prints) are that version;
#   - kflush_version() returns it, as the string and as the three numbers
#     (tests/version_print);
#   - pmemtest --version names pmemtest's and the loaded library's version,
#     and with a stand-in library reporting 9.8.7 preloaded, both
#     pmemtest --version and the libkflush_version of its JSON say 9.8.7:
#     they ask the library, not the header or configure.
# Run from the build directory (make check); pmemtest is checked when built.
set -u

srcdir=${srcdir:-$(dirname "$0")/..}
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

part() { sed -n "s/^#define KFLUSH_VERSION_$1  *\([0-9][0-9]*\)\$/\1/p" "$srcdir/include/kflush.h"; }
major=$(part MAJOR) minor=$(part MINOR) patch=$(part PATCH)
case "$major.$minor.$patch" in
*[!0-9.]* | .* | *.. | *.) echo "version: cannot read KFLUSH_VERSION_* from $srcdir/include/kflush.h" >&2; exit 99 ;;
esac
want=$major.$minor.$patch
echo "header: $want"

got=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' config.h)
[ "$got" = "$want" ] || fail "configure's PACKAGE_VERSION is '$got', the header says $want"

if command -v pkg-config >/dev/null; then
	got=$(PKG_CONFIG_PATH=. PKG_CONFIG_LIBDIR=/nonexistent pkg-config --modversion libkflush)
else
	got=$(sed -n 's/^Version: //p' libkflush.pc)
fi
[ "$got" = "$want" ] || fail "libkflush.pc says '$got', the header says $want"

got=$(./tests/version_print) || fail "tests/version_print failed"
[ "$got" = "$want $want $want" ] ||
	fail "kflush_version() and the macros as built say '$got', expected '$want $want $want'"

if [ -x ./pmemtest/pmemtest ]; then
	out=$(./pmemtest/pmemtest --version) || fail "pmemtest --version failed"
	expect=$(printf 'pmemtest %s\nlibkflush %s (loaded; built against %s)' "$want" "$want" "$want")
	[ "$out" = "$expect" ] || fail "pmemtest --version printed '$out', expected '$expect'"

	shim=./tests/.libs/libversionshim.so
	[ -f "$shim" ] || { echo "version: $shim not built" >&2; exit 99; }
	# The shim is not the sanitizer runtime, which wants to be first.
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	out=$(LD_PRELOAD=$shim ./pmemtest/pmemtest --version | sed -n 2p)
	[ "$out" = "libkflush 9.8.7 (loaded; built against $want)" ] ||
		fail "with a library reporting 9.8.7, pmemtest --version said '$out'"
	json=$(LD_PRELOAD=$shim ./pmemtest/pmemtest info --json 2>/dev/null)
	case "$json" in
	*'"libkflush_version":"9.8.7"'* | *'"libkflush_version": "9.8.7"'*) ;;
	*) fail "with a library reporting 9.8.7, pmemtest info --json says: $(printf '%s' "$json" | grep -o '"libkflush_version"[^,]*')" ;;
	esac
	echo "pmemtest: checked --version and info --json"
else
	echo "version: pmemtest not built; checked the library only"
fi

[ "$fails" = 0 ] && echo "version: $want everywhere"
exit $((fails != 0))
