#!/bin/sh
# SPDX-License-Identifier: MIT
# pmemtest's bad-input contract: every mistake is one clear line on stderr,
# exit 1 (failure) or 2 (usage), and the target's bytes are left as they
# were. Plus --force after the command meaning the global one (which bytes
# --force changes: test_pmemtest_force.sh). Small sizes and --repeat 1 keep it fast.
set -u

PMEMTEST=${PMEMTEST:-./pmemtest/pmemtest}
. "$(dirname "$0")/lib.sh"
tl_scratch pmemtest-test
# Some cases leave read-only files behind: make them removable first.
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT INT TERM

# expect CODE PATTERN [FILE] -- ARGS: exit code CODE, exactly one stderr
# line matching PATTERN, and FILE's checksum unchanged, within two minutes.
expect() {
	code=$1 pat=$2 file=$3
	shift 4
	n=$((n + 1))
	before=
	[ -n "$file" ] && before=$(cksum < "$file")
	# A hang is a failure too (exit 124), not a stuck suite.
	timeout 120 "$PMEMTEST" "$@" > "$T/out" 2> "$T/err"
	rc=$?
	lines=$(wc -l < "$T/err")
	if [ "$rc" -ne "$code" ]; then
		fail "pmemtest $*: exit $rc, expected $code ($(head -c 300 "$T/err"))"
	elif [ "$lines" -ne 1 ]; then
		fail "pmemtest $*: $lines lines on stderr, expected one: $(head -c 300 "$T/err")"
	elif ! grep -q -- "$pat" "$T/err"; then
		fail "pmemtest $*: stderr does not say '$pat': $(cat "$T/err")"
	else
		echo "ok $n - pmemtest $* -> $code: $(cat "$T/err")"
	fi
	if [ -n "$file" ] && [ "$(cksum < "$file")" != "$before" ]; then
		fail "pmemtest $*: $file changed"
	fi
}

# A 16 MiB file of non-zero data: the "existing data" every case protects.
data=$T/data
head -c 16777216 /dev/urandom > "$data" || exit 99
small=$T/small
head -c 65536 /dev/urandom > "$small"
ro=$T/readonly
head -c 16777216 /dev/urandom > "$ro"
chmod 0444 "$ro"
mkdir "$T/dir"
mkfifo "$T/fifo" || exit 99

# Targets that are not namespaces.
expect 1 "No such file" "" -- --dev "$T/missing" init-bench --repeat 1
expect 1 "is a directory" "" -- --dev "$T/dir" init-bench --repeat 1
expect 1 "not a devdax device" "" -- --dev /dev/null init-bench --repeat 1
expect 1 "not a devdax device" "" -- --dev /dev/zero init-bench --repeat 1
expect 1 "read-only\|Permission denied" "$ro" -- --force --dev "$ro" init-bench --memmap dev --repeat 1
expect 1 "too small for the memmap" "$small" -- --force --dev "$small" init-bench --memmap dev --repeat 1
expect 2 "larger than" "$data" -- --dev "$data" init-bench --size 1G --repeat 1
# The kernel's own files are regular files whose size is no room for a
# memmap: every sysfs attribute says 4096 (a run would time a 4 KiB
# "namespace" and exit 0), /proc files 0. Refused by their file system.
for f in /sys/kernel/uevent_seqnum /proc/self/status; do
	if [ -f "$f" ]; then
		expect 1 "is a file of the kernel's" "" -- --dev "$f" init-bench --repeat 1
		expect 1 "is a file of the kernel's" "" -- --force --dev "$f" init-bench --memmap dev --repeat 1
	else
		echo "skip - $f: no such file here"
	fi
done

# Sizes.
expect 2 "expected a positive size" "" -- init-bench --size 0 --repeat 1
expect 2 "expected a positive size" "" -- init-bench --size -5G --repeat 1
expect 2 "expected a positive size" "" -- init-bench --size lots --repeat 1
expect 2 "expected a positive size" "" -- init-bench --size 12Q --repeat 1
expect 2 "absurd" "" -- init-bench --size 99999999999999999999 --repeat 1
expect 2 "absurd" "" -- init-bench --size 16000T --repeat 1
# 4 PiB of namespace needs 64 TiB of memmap: refused before allocating.
expect 1 "refusing before allocating" "" -- init-bench --size 4096T --repeat 1

# Unknown names and conflicting options.
expect 2 "unknown method 'bogus'" "" -- init-bench --methods slow,bogus --repeat 1
expect 2 "unknown command 'frobnicate'" "" -- frobnicate
expect 2 "unknown option" "" -- init-bench --no-such-option
expect 2 "unknown global option" "" -- --no-such-option info
expect 2 "conflict" "" -- --json --csv init-bench --repeat 1
expect 2 "--dev given twice" "$data" -- --dev "$T/missing" init-bench --dev "$data" --force --memmap dev --repeat 1
expect 2 "--output given twice" "$data" -- --output "$T/o1" info --output="$data"
expect 2 "expected 56, 64 or 80" "" -- init-bench --struct-page 60
expect 2 "no x86-64 config of kernel 2026 gives it (64 or 80)" "" -- init-bench --struct-page 96
expect 2 "no x86-64 config of kernel 2026 gives it" "" -- init-bench --struct-page 56
expect 2 "no model of that kernel" "" -- init-bench --kernel 5.4
expect 2 "say which namespace with --mode" "" -- init-bench --replay-out "$T/rp.bin" --repeat 1
expect 2 "only the embedded namespaces" "$data" -- --dev "$data" init-bench --mode devdax --replay-out "$T/rp.bin" --repeat 1
# --replay-out mistakes that can be seen before the runs are refused before
# them: no table on stdout. A fifo may get its reader while the runs go on,
# so it is opened only at the end.
before_runs() {
	if [ -s "$T/out" ]; then
		fail "pmemtest $*: refused only after the runs: $(head -c 200 "$T/out")"
	fi
}
expect 2 "needs a memmap the kernel writes in full" "" -- --quiet init-bench --mode devdax --memmap mem --size 64M --methods slow --repeat 1 --replay-out "$T/rp.bin"
before_runs devdax map=mem --replay-out
expect 1 "--replay-out $T/fifo: a fifo nobody reads" "" -- --quiet init-bench --mode devdax --size 64M --methods slow --repeat 1 --replay-out "$T/fifo"
expect 1 "--replay-out $T/dir: is a directory" "" -- --quiet init-bench --mode devdax --size 64M --methods slow --repeat 1 --replay-out "$T/dir"
before_runs --replay-out a directory
expect 1 "--replay-out $T/missing/rp.bin: cannot create it in $T/missing" "" -- --quiet init-bench --mode fsdax --size 64M --methods slow --repeat 1 --replay-out "$T/missing/rp.bin"
before_runs --replay-out in a missing directory
# The results would land on the dump when the command ends.
expect 2 "--replay-out $T/rp.out is the --output file" "" -- --output "$T/rp.out" --quiet init-bench --mode fsdax --size 64M --methods slow --repeat 1 --replay-out "$T/rp.out"
n=$((n + 1))
if [ -e "$T/rp.out" ]; then
	fail "--output and --replay-out the same new file: the refused run left $T/rp.out behind"
else
	echo "ok $n - the refused run removed the --output file it had created"
fi
# A sparse --force target whose filesystem has no room for the memmap's
# pages: one line and exit 1 before any run, not a SIGBUS on the first
# store. A 4 MiB tmpfs in a mount namespace of its own, so as root only.
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null 2>&1 && mkdir "$T/tmpfs" &&
   unshare -m sh -c 'mount -t tmpfs -o size=4m pmemtest "$1"' sh "$T/tmpfs" 2> /dev/null; then
	n=$((n + 1))
	unshare -m sh -c 'mount -t tmpfs -o size=4m pmemtest "$1" && truncate -s 1G "$1/sparse" &&
		exec timeout 120 "$2" -q --dev "$1/sparse" --force init-bench --mode fsdax \
		--methods slow --repeat 1' sh "$T/tmpfs" "$PMEMTEST" > "$T/out" 2> "$T/err"
	rc=$?
	if [ "$rc" -ne 1 ] || ! grep -q "no room for its pages" "$T/err" || [ -s "$T/out" ]; then
		fail "a sparse target on a full filesystem: exit $rc: $(cat "$T/err")"
	else
		echo "ok $n - a sparse target on a full filesystem: exit 1: $(tail -n 1 "$T/err")"
	fi
fi
# A namespace no larger than the info block (8 KiB) has no room for data.
expect 1 "8 KiB is too small for the memmap" "" -- --quiet init-bench --mode fsdax --size 8K --methods slow --repeat 1
expect 2 "bad --repeat '+3'" "" -- copy-bench --repeat +3 --list
expect 2 "bad --repeat '-1'" "" -- clear-bench --repeat -1 --list
expect 2 "expected 4K, 2M or 1G" "" -- init-bench --align 3M
expect 2 "expected fsdax or devdax" "" -- init-bench --mode raw
expect 2 "expected 1..100000" "" -- init-bench --repeat 0
expect 2 "expected wall or cpu" "" -- init-bench --clock sundial
expect 2 "expected cached, stream or prefetch" "" -- init-bench --pageblock-copy nt
expect 2 "expected drain or cached" "" -- init-bench --compound-head fence
# prefetch needs the instruction: with it masked off, a plain failure (1), before any run.
export KFLUSH_HWCAPS=-prefetchw
expect 1 "--pageblock-copy prefetch: this CPU (after KFLUSH_HWCAPS) has no prefetchw" "" -- init-bench --pageblock-copy prefetch --size 64M --repeat 1
unset KFLUSH_HWCAPS
expect 2 "no such memcpy_flushcache variant" "" -- init-bench --variant turbo
expect 2 "needs an argument" "" -- init-bench --size

# --output: a file is created or replaced, anything else is refused by its
# kind before it is opened; a fifo nobody reads is refused at once, where
# opening it would wait for a reader (the one with a reader: below).
expect 1 "is a directory, not a file to write into" "" -- --output "$T/dir" info
expect 1 "a fifo nobody reads" "" -- --output "$T/fifo" info
if mknod "$T/blk" b 7 250 2> /dev/null; then
	expect 1 "is a block device, not a file to write into" "" -- --output "$T/blk" info
fi
expect 2 "is the --dev target" "$data" -- --dev "$data" --output "$data" init-bench --repeat 1
expect 2 "is the --dev target" "$data" -- --dev "$data" init-bench --repeat 1 --output="$data"
# A command that fails before printing anything leaves the --output file
# as it was (the shell's > would have emptied it already), and one it
# created is removed again.
printf 'results kept from an earlier run\n' > "$T/kept"
expect 2 "unknown option '--bogus'" "$T/kept" -- --output "$T/kept" init-bench --bogus
expect 2 "unexpected argument 'extra'" "$T/kept" -- --output "$T/kept" info extra
expect 1 "No such file" "$T/kept" -- --output "$T/kept" --dev "$T/missing" init-bench --repeat 1
expect 2 "unexpected argument 'extra'" "" -- --output "$T/new.out" info extra
n=$((n + 1))
if [ -e "$T/new.out" ]; then
	fail "--output: a usage error left the file it had created"
else
	echo "ok $n - --output: a usage error removed the file it had created"
fi
# Replaced through a symlink, as the shell would: the link stays a link.
ln -s kept "$T/kept.link"
n=$((n + 1))
if ! "$PMEMTEST" --output "$T/kept.link" --json info 2> "$T/err" || [ ! -L "$T/kept.link" ] ||
   ! grep -q '"command"' "$T/kept"; then
	fail "--output through a symlink: $(cat "$T/err"; ls -l "$T/kept.link"; head -c 100 "$T/kept")"
else
	echo "ok $n - --output through a symlink writes the file it names"
fi
# A reader that goes away: reported once with its cause, exit 1, not a
# silent death by SIGPIPE. The pipe's read end is closed before pmemtest
# runs (perl, which Debian always has, execs it with stdout on that pipe).
n=$((n + 1))
perl -e 'pipe(my $r, my $w) or exit 99; close($r); open(STDOUT, ">&", $w) or exit 99;
	exec(@ARGV) or exit 99' "$PMEMTEST" --json info 2> "$T/err"
rc=$?
if [ "$rc" != 1 ] || ! grep -q "error writing standard output: Broken pipe" "$T/err" ||
   [ "$(wc -l < "$T/err")" -ne 1 ]; then
	fail "stdout a pipe with no reader: exit $rc: $(cat "$T/err")"
else
	echo "ok $n - stdout a pipe with no reader: exit 1: $(cat "$T/err")"
fi

# plot refuses what gnuplot would wait on, read forever or overwrite, before
# it runs gnuplot (so these need no gnuplot).
printf 'mode,cache\n' > "$T/r.csv"
export PMEMTEST_PLOT_GP="${srcdir:-.}/tools/plot.gp"
expect 1 "is a fifo, not a CSV file" "" -- plot "$T/fifo"
expect 1 "is a character device, not a CSV file" "" -- plot /dev/zero
expect 1 "is a directory, not a CSV file" "" -- plot "$T/dir"
expect 2 "is the CSV itself" "$T/r.csv" -- --output "$T/r.csv" plot "$T/r.csv"
expect 1 "is a fifo, not an image file" "" -- --output "$T/fifo" plot "$T/r.csv"
expect 1 "is a directory, not an image file" "" -- --output "$T/dir" plot "$T/r.csv"

# Existing data without --force: refused, naming the range and --force.
expect 2 "add --force" "$data" -- --dev "$data" init-bench --memmap dev --repeat 1

# Without --force the target is only read, whatever the method list.
n=$((n + 1))
before=$(cksum < "$data")
if ! "$PMEMTEST" --quiet --dev "$data" init-bench --repeat 1 > "$T/out" 2> "$T/err"; then
	fail "read-only run on $data failed: $(cat "$T/err")"
elif [ "$(cksum < "$data")" != "$before" ]; then
	fail "a run without --force changed $data"
else
	echo "ok $n - without --force $data is untouched"
fi

# info: plain text says where every op is bound and whether devices exist;
# KFLUSH_HWCAPS masking shows up in the JSON.
expect 2 "--csv is not supported" "" -- --csv info
n=$((n + 1))
if ! "$PMEMTEST" info > "$T/out" 2> "$T/err"; then
	fail "info failed: $(cat "$T/err")"
elif ! grep -q "^  memcpy_flushcache " "$T/out" || ! grep -q "dax devices and pmem namespaces" "$T/out"; then
	fail "info: missing bound variants or devices: $(cat "$T/out")"
else
	echo "ok $n - info lists bound variants and devices"
fi
n=$((n + 1))
if ! KFLUSH_HWCAPS=-avx2,-avx512f "$PMEMTEST" --json info > "$T/out" 2> "$T/err"; then
	fail "--json info failed: $(cat "$T/err")"
elif ! tr -d ' \n' < "$T/out" | grep -q '"cpu_features_masked":\[[^]]*\]' ||
     tr -d ' \n' < "$T/out" | grep -o '"cpu_features_masked":\[[^]]*\]' | grep -q avx2; then
	fail "--json info: KFLUSH_HWCAPS=-avx2 not reflected: $(head -c 600 "$T/out")"
else
	echo "ok $n - info --json reflects KFLUSH_HWCAPS"
fi

# fifo_out FILE ARGS: pmemtest ARGS --output into $T/fifo, whose reader
# waits a second before it reads, so that a large result fills the pipe
# first, and copies what comes into FILE. The reader counts from its open(),
# which may come after pmemtest's: until then pmemtest refuses the fifo and
# is run again. Sets rc.
fifo_out() {
	out=$1
	shift
	{ sleep 1; cat; } < "$T/fifo" > "$out" &
	reader=$!
	for try in $(seq 50); do
		timeout 120 "$PMEMTEST" --output "$T/fifo" "$@" 2> "$T/err"
		rc=$?
		if [ "$rc" -ne 1 ] || ! grep -q "nobody reads" "$T/err"; then
			break
		fi
		sleep 0.1
	done
	# A reader still waiting for a writer would wait forever.
	[ "$rc" -eq 0 ] || kill "$reader" 2> /dev/null
	wait "$reader"
}

# --output into a fifo with its reader, and over an existing file: the
# results arrive whole.
n=$((n + 1))
"$PMEMTEST" info > "$T/info.want" 2> /dev/null
fifo_out "$T/info.fifo" info
cp "$small" "$T/info.file"
timeout 120 "$PMEMTEST" --output "$T/info.file" info 2>> "$T/err"
rc2=$?
if [ "$rc" -ne 0 ] || [ "$rc2" -ne 0 ]; then
	fail "--output into a fifo with a reader: exit $rc, over a file: exit $rc2: $(cat "$T/err")"
elif ! cmp -s "$T/info.want" "$T/info.fifo" || ! cmp -s "$T/info.want" "$T/info.file"; then
	fail "--output: what info wrote into the fifo or the file is not what it prints"
else
	echo "ok $n - --output into a fifo with a reader and over a file"
fi
# More than a pipe holds (64 KiB) while its reader sleeps: the writes wait
# for the reader, as they would on stdout, and nothing is lost.
n=$((n + 1))
fifo_out "$T/big.fifo" --json copy-bench --mode memcpy --cache hot --layout fixed -r 1 \
	--max-size 4K
size=$(wc -c < "$T/big.fifo")
if [ "$rc" -ne 0 ]; then
	fail "--output into a slow fifo: exit $rc: $(cat "$T/err")"
elif [ "$size" -le 65536 ] || [ "$(tail -c 2 "$T/big.fifo")" != "}" ]; then
	fail "--output into a slow fifo: $size bytes, or not ending the JSON document"
else
	echo "ok $n - --output into a fifo whose reader is slow: $size bytes, whole"
fi

# The embedded default, small: every method verified, split across threads,
# and the machine-readable outputs carry every sample.
n=$((n + 1))
if ! "$PMEMTEST" --quiet init-bench --size 256M --repeat 2 --threads 2 > "$T/out" 2> "$T/err"; then
	fail "small embedded run with 2 threads failed: $(cat "$T/err")"
elif [ "$(grep -c '^  \(slow\|generic\|fixed\|pmem2\|memcpy\|roof\) ' "$T/out")" -ne 12 ]; then
	fail "small embedded run: expected 6+ methods per namespace in the table: $(cat "$T/out")"
else
	echo "ok $n - small embedded run, 2 threads, verified"
fi
n=$((n + 1))
if ! "$PMEMTEST" --quiet --csv init-bench --size 64M --repeat 3 --mode devdax \
	--methods fixed,pmem2 > "$T/out" 2> "$T/err"; then
	fail "--csv run failed: $(cat "$T/err")"
elif [ "$(grep -c '^dax_pmem,devdax,dev,' "$T/out")" -ne 6 ]; then
	fail "--csv: expected 6 sample rows: $(cat "$T/out")"
else
	echo "ok $n - --csv carries every sample"
fi
n=$((n + 1))
if ! "$PMEMTEST" --quiet --json init-bench --size 64M --repeat 2 --mode fsdax \
	--methods slow,fixed > "$T/out" 2> "$T/err"; then
	fail "--json run failed: $(cat "$T/err")"
elif ! grep -q '"verified":true' "$T/out" || [ "$(grep -c '"samples"' "$T/out")" -ne 2 ]; then
	fail "--json: missing samples or verification: $(head -c 500 "$T/out")"
else
	echo "ok $n - --json carries the samples and the verification"
fi

# The --force runs below start from a copy of the original data; what
# exactly --force changes is tests/test_pmemtest_force.sh's.
cp "$data" "$T/orig"

# --force after the command is the global --force: on copies of the same
# small file, both spellings exit alike, announce the same range and change
# the same span of bytes. (Not identical bytes: struct pages hold pointers,
# which differ from run to run with ASLR.)
changed() {
	cmp -l "$T/orig" "$1" | awk 'NR == 1 { f = $1 } { l = $1 } END { if (NR) print f - 1 "-" l - 1 }'
}
cp "$T/orig" "$T/g.dat"
cp "$T/orig" "$T/c.dat"
n=$((n + 1))
"$PMEMTEST" --quiet --force --dev "$T/g.dat" init-bench --memmap dev --methods slow \
	--repeat 1 > "$T/out.g" 2> "$T/err.g"
rc_g=$?
"$PMEMTEST" --quiet --dev "$T/c.dat" init-bench --memmap dev --methods slow --repeat 1 \
	--force > "$T/out.c" 2> "$T/err.c"
rc_c=$?
range_g=$(sed -n 's/.*overwriting bytes \([0-9]*-[0-9]*\) .*/\1/p' "$T/err.g")
range_c=$(sed -n 's/.*overwriting bytes \([0-9]*-[0-9]*\) .*/\1/p' "$T/err.c")
if [ "$rc_g" -ne 0 ] || [ "$rc_c" -ne 0 ]; then
	fail "--force after init-bench: exit $rc_c, global --force: exit $rc_g: $(cat "$T/err.c")"
elif [ -z "$range_g" ] || [ "$range_g" != "$range_c" ]; then
	fail "--force after init-bench announced '$range_c', global --force '$range_g'"
elif [ "$(changed "$T/c.dat")" != "$(changed "$T/g.dat")" ]; then
	fail "--force after init-bench changed bytes $(changed "$T/c.dat"), global --force $(changed "$T/g.dat")"
elif [ -z "$(changed "$T/c.dat")" ]; then
	fail "--force after init-bench wrote nothing"
else
	echo "ok $n - init-bench --force == global --force (bytes $range_c)"
fi
# Without --memmap, --force alone picks dev in both places.
cp "$T/orig" "$T/g.dat"
cp "$T/orig" "$T/c.dat"
n=$((n + 1))
"$PMEMTEST" --quiet --force --dev "$T/g.dat" init-bench -t slow -r 1 > "$T/out.g" 2> "$T/err.g"
"$PMEMTEST" --quiet --dev "$T/c.dat" init-bench -t slow -r 1 -f > "$T/out.c" 2> "$T/err.c"
if [ "$(changed "$T/c.dat")" != "$(changed "$T/g.dat")" ] || [ -z "$(changed "$T/c.dat")" ] ||
   [ "$(sed "s,$T/g.dat,F," "$T/err.g")" != "$(sed "s,$T/c.dat,F," "$T/err.c")" ]; then
	fail "init-bench -f without --memmap differs from the global --force: $(cat "$T/err.c")"
else
	echo "ok $n - init-bench -f without --memmap == global --force"
fi
echo "$n checks, $fails failures"
[ "$fails" -eq 0 ]
