#!/bin/sh
# SPDX-License-Identifier: MIT
# /init of the QEMU rig's guest (tools/vm/run.sh). Loads the NVDIMM and ext4
# modules, makes namespace0.0 a devdax device (align 2M) and namespace1.0 an
# fsdax block device with a DAX-mounted ext4, runs the checks of the boot's
# phase and reports on the console in lines the host parses:
#   KFLUSH-VM: PASS name            KFLUSH-VM: FAIL name reason
#   KFLUSH-VM: TIME name seconds    KFLUSH-VM: RESULT name key=value ...
#   KFLUSH-VM: DONE pass=N fail=M
# Busybox runs its applets before anything in PATH, so the real ndctl,
# mke2fs, pmemtest and helpers are always called by full path ($K/...).
# Word splitting of $(...) into "set --" is wanted throughout.
# shellcheck disable=SC2046
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/shm /dev/pts
mount -t tmpfs tmpfs /dev/shm
# /tmp stays on the (writable, RAM-backed) rootfs: a build tree under /tmp
# carries test helpers that a tmpfs mount would hide.
export HOME=/tmp TMPDIR=/tmp LD_LIBRARY_PATH=/opt/kflush/lib
K=/opt/kflush/bin
T=/opt/kflush/tests
MIB=1048576

phase=main
rebinds=10
persistence=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	kflush.phase=*) phase=${arg#*=} ;;
	kflush.rebinds=*) rebinds=${arg#*=} ;;
	kflush.persistence=*) persistence=${arg#*=} ;;
	esac
done
# Tests that honour these place their buffers on DAX and shrink their sweeps.
export KFLUSH_TEST_DAX_DIR=/mnt/pmem KFLUSH_TEST_QUICK=1
# Nothing else lives in this guest: the tests that damage the machine they
# run on (MADV_HWPOISON of a page) are opted in here, never on the host.
export KFLUSH_TEST_HWPOISON=1

npass=0
nfail=0
say() { echo "KFLUSH-VM: $*"; }
pass() { npass=$((npass + 1)); say PASS "$1"; }
fail() { nfail=$((nfail + 1)); say FAIL "$1" "$2"; }
now() { cut -d' ' -f1 /proc/uptime; }
timed() { say TIME "$1" "$(awk -v a="$2" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')"; }

# run NAME CMD...: run a command with a time limit, keep its output in
# /tmp/out.NAME and echo it indented, so the console log shows everything.
run() {
	out=/tmp/out.$1
	shift
	timeout 600 "$@" >"$out" 2>&1
	rc=$?
	sed 's/^/  | /' "$out"
	return $rc
}

# Objects (path prefixes) in flattened JSON $1 with a scalar matching ERE $2.
objects_with() {
	awk -F '\t' -v re="$2" '$2 ~ re { p = $1; sub(/(\.[^.[]*|\[[0-9]+\])$/, "", p); print p }' "$1"
}
# The scalar KEY of object PREFIX (or of its parents) in flattened JSON $1.
field() {
	awk -F '\t' -v pre="$2" -v key="$3" '
		{ v[$1] = $2 }
		END {
			p = pre
			while (1) {
				if ((p "." key) in v) { print v[p "." key]; exit }
				if (p == "") exit
				if (!sub(/(\.[^.[]*|\[[0-9]+\])$/, "", p)) exit
			}
		}' "$1"
}

poweroff_now() {
	say DONE "pass=$npass fail=$nfail"
	sync
	poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
}

# --- setup -------------------------------------------------------------------
t0=$(now)
say BOOTED "phase=$phase uptime=$t0 kernel=$(uname -r)"
for m in $(cat /etc/kflush-modules); do
	insmod "$m" || { fail setup "insmod $m failed"; poweroff_now; }
done
i=0
while [ ! -e /sys/bus/nd/devices/region1 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if ! run ns0 $K/ndctl create-namespace -f -e namespace0.0 -m devdax -a 2M ||
   ! run ns1 $K/ndctl create-namespace -f -e namespace1.0 -m fsdax; then
	fail setup "ndctl create-namespace failed (no NVDIMM regions?)"
	poweroff_now
fi
i=0
while { [ ! -e /dev/dax0.0 ] || [ ! -e /dev/pmem1 ]; } && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if ! run mkfs $K/mke2fs -q -F -t ext4 -b 4096 -E nodiscard,lazy_itable_init=1 /dev/pmem1 ||
   ! mount -t ext4 -o dax /dev/pmem1 /mnt/pmem; then
	fail setup "mke2fs or mount -o dax of /dev/pmem1 failed"
	poweroff_now
fi
dax_size=$(cat /sys/bus/dax/devices/dax0.0/size)
dax_align=$(cat /sys/bus/dax/devices/dax0.0/align 2>/dev/null || echo 2097152)
pmem_size=$(($(cat /sys/block/pmem1/size) * 512))
say RESULT setup "dax0.0_size=$dax_size dax0.0_align=$dax_align pmem1_size=$pmem_size"
pass setup
timed setup "$t0"

# --- check 1: pmemtest info --json ---------------------------------------------
check_info() {
	t=$(now)
	if ! run info $K/pmemtest --json info && ! run info $K/pmemtest info --json; then
		fail 1-info-json "pmemtest info --json failed (needs issue 4's info --json)"
		timed 1-info-json "$t"
		return
	fi
	awk -f /etc/jsonflat.awk /tmp/out.info >/tmp/info.flat
	why=
	dax=$(objects_with /tmp/info.flat '^(/dev/)?dax0\.0$' | head -n 1)
	if [ -z "$dax" ]; then
		why="dax0.0 not listed"
	else
		s=$(field /tmp/info.flat "$dax" size)
		a=$(field /tmp/info.flat "$dax" align)
		[ "$s" = "$dax_size" ] || why="dax0.0 size '$s', want $dax_size"
		[ "$a" = 2097152 ] || why="$why${why:+; }dax0.0 align '$a', want 2097152"
		# The nodes as the kernel gives them: the namespace's, the memory's.
		for k in numa_node target_node; do
			v=$(field /tmp/info.flat "$dax" $k)
			want=$(cat /sys/bus/dax/devices/dax0.0/$k 2>/dev/null)
			[ "$k" = numa_node ] &&
				want=$(cat /sys/bus/nd/devices/namespace0.0/numa_node 2>/dev/null)
			[ -n "$want" ] && [ "$v" = "$want" ] ||
				why="$why${why:+; }dax0.0 $k '$v', want '$want' (sysfs)"
		done
	fi
	pm=$(objects_with /tmp/info.flat '^(/dev/)?pmem1$' | head -n 1)
	if [ -z "$pm" ]; then
		why="$why${why:+; }fsdax block device pmem1 not listed"
	elif [ "$(field /tmp/info.flat "$pm" mode)" != fsdax ]; then
		why="$why${why:+; }pmem1 listed without mode fsdax"
	fi
	if [ -z "$why" ]; then pass 1-info-json; else fail 1-info-json "$why"; fi
	timed 1-info-json "$t"
}

# --- check 2: init-bench on /dev/dax0.0 ----------------------------------------
# "$dax_size" written the ways a person would: bytes, MiB, GiB.
size_patterns() {
	awk -v s="$1" 'BEGIN {
		printf "%s|%d ?M|%.1f ?G|%.2f ?G|%.3f ?G", s, s / 1048576, s / 1073741824,
			s / 1073741824, s / 1073741824
		if (s % 1073741824 == 0) printf "|%d ?G", s / 1073741824
	}'
}

# dev_readonly NAME NODE: init-bench without --force through NODE, a node
# of dax0.0, uses the device's geometry and writes nothing to it; through
# a node of another name, a note says it is dax0.0.
dev_readonly() {
	name=$1 node=$2
	t=$(now)
	$K/kflush-vmpeek fill /dev/dax0.0 0 $((4 * MIB))
	if ! run "$name" $K/pmemtest --dev "$node" init-bench --methods slow --repeat 1; then
		fail $name "pmemtest --dev $node init-bench failed"
	elif [ "$($K/kflush-vmpeek scan /dev/dax0.0 0 $((4 * MIB)))" != intact ]; then
		fail $name "the default run wrote to the device"
	elif ! grep -Eq "$(size_patterns "$dax_size")" /tmp/out.$name; then
		fail $name "output does not show the device size ($dax_size bytes)"
	elif ! grep -Eiq '(^|[^0-9.])2 ?M|2097152' /tmp/out.$name; then
		fail $name "output does not show the 2 MiB alignment"
	elif [ "$node" != /dev/dax0.0 ] && ! grep -q "$node is dax0\.0" /tmp/out.$name; then
		fail $name "no note naming dax0.0 for $node"
	else
		pass $name
	fi
	timed $name "$t"
}

check_dev_default() {
	dev_readonly 2a-dev-default /dev/dax0.0
}

# The same device through a node of another name (a udev rule's, a
# container's): found by its number.
check_dev_renamed() {
	node=/tmp/pmem-scratch
	rm -f $node
	if mknod $node c $(tr ':' ' ' </sys/bus/dax/devices/dax0.0/dev); then
		dev_readonly 2c-dev-renamed $node
	else
		fail 2c-dev-renamed "mknod $node failed"
	fi
	rm -f $node
}

# Which byte range pmemtest says it overwrites: the first two numbers on
# its "overwrit..." line, as "FIRST LAST".
said_range() {
	grep -i -m 1 'overwrit' "$1" | tr -c '0-9a-fA-Fx\n' ' ' | awk '{
		n = 0
		for (i = 1; i <= NF && n < 2; i++) {
			if ($i ~ /^0[xX][0-9a-fA-F]+$/) v[n++] = sprintf("%d", strtonum_hex($i))
			else if ($i ~ /^[0-9]+$/) v[n++] = $i
		}
		if (n == 2) print v[0], v[1]
	}
	function strtonum_hex(h,    i, c, r) {
		r = 0
		h = tolower(substr(h, 3))
		for (i = 1; i <= length(h); i++) {
			c = index("0123456789abcdef", substr(h, i, 1)) - 1
			r = r * 16 + c
		}
		return r
	}'
}

check_dev_memmap() {
	t=$(now)
	name=2b-dev-memmap
	want=$((dax_size / 4096 * 64))
	span=$(((want + 8 * MIB + 2 * MIB - 1) / (2 * MIB) * (2 * MIB)))
	tailoff=$((dax_size - 2 * MIB))
	$K/kflush-vmpeek fill /dev/dax0.0 0 $span
	$K/kflush-vmpeek fill /dev/dax0.0 $tailoff $((2 * MIB))
	if ! run ib-dev $K/pmemtest --dev /dev/dax0.0 --force init-bench --memmap dev \
		--methods "${KFLUSH_VM_METHOD:-fixed}" --repeat 1; then
		fail $name "init-bench --memmap dev with --force failed (needs issue 4's init-bench)"
		timed $name "$t"
		return
	fi
	said=$(said_range /tmp/out.ib-dev)
	set -- $($K/kflush-vmpeek scan /dev/dax0.0 0 $span)
	if [ "$1" != changed ]; then
		fail $name "nothing was written to the device"
		timed $name "$t"
		return
	fi
	first=$2
	end=$3
	say RESULT $name "written=$first-$end said=$(echo $said | tr ' ' -) memmap_max=$want"
	why=
	if [ -z "$said" ]; then
		fail $name "no 'overwriting bytes A-B' line names the byte range"
		timed $name "$t"
		return
	fi
	set -- $said
	from=$1
	to=$(($2 + 1))
	# Written bytes inside the announced range, the range inside the memmap.
	[ "$first" -ge "$from" ] && [ "$end" -le "$to" ] ||
		why="wrote $first-$end outside the announced range $from-$to"
	[ "$to" -le "$want" ] || why="$why${why:+; }announced range ends past the memmap ($want bytes)"
	[ "$first" -eq "$from" ] && [ "$end" -eq "$to" ] ||
		why="$why${why:+; }wrote $first-$end, not all of the announced range $from-$to"
	[ "$($K/kflush-vmpeek scan /dev/dax0.0 $tailoff $((2 * MIB)))" = intact ] ||
		why="$why${why:+; }the last 2 MiB of the device changed"
	if ! run peek-dev $K/kflush-vmpeek memmap /dev/dax0.0 "$from" $((to - from)) 64 devdax 512; then
		why="$why${why:+; }struct pages read back from the device are wrong"
	fi
	if [ -z "$why" ]; then pass $name; else fail $name "$why"; fi
	timed $name "$t"
}

# --- check 3: init-bench on a file in the DAX-mounted ext4 -----------------------
check_fsdax_file() {
	t=$(now)
	name=3-fsdax-file
	f=/mnt/pmem/initbench
	if ! grep -q ' /mnt/pmem .*dax' /proc/mounts; then
		fail $name "/mnt/pmem is not mounted with -o dax"
		return
	fi
	fallocate -l $((64 * MIB)) $f
	$K/kflush-vmpeek fill $f 0 $((64 * MIB))
	if ! run ib-file $K/pmemtest --dev $f --force init-bench --memmap dev --methods slow --repeat 1; then
		fail $name "init-bench on $f failed (needs issue 4's init-bench)"
	elif grep -Eiq 'stands? in' /tmp/out.ib-file; then
		fail $name "output says a stand-in is used on a DAX file"
	elif ! grep -Eiq 'map_sync|real dax' /tmp/out.ib-file; then
		fail $name "output does not say it is real DAX (MAP_SYNC); it says: $(grep -m 1 'memmap:' /tmp/out.ib-file)"
	else
		said=$(said_range /tmp/out.ib-file)
		set -- $($K/kflush-vmpeek scan $f 0 $((64 * MIB))) $said
		if [ "$1" != changed ] || [ $# -ne 5 ] || [ "$2" -lt "$4" ] || [ "$3" -gt $(($5 + 1)) ] ||
		   ! run peek-file $K/kflush-vmpeek memmap $f "$4" $(($5 + 1 - $4)) 64 fsdax 1; then
			fail $name "struct pages read back from $f are wrong or missing"
		else
			pass $name
		fi
	fi
	rm -f $f
	timed $name "$t"

	# The control: an ordinary (tmpfs) file must not be reported as DAX.
	t=$(now)
	name=3-tmpfs-control
	f=/tmp/initbench
	dd if=/dev/zero of=$f bs=1048576 count=64 2>/dev/null
	if ! run ib-tmp $K/pmemtest --dev $f --force init-bench --memmap dev --methods slow --repeat 1; then
		fail $name "init-bench on a tmpfs file failed (needs issue 4's init-bench)"
	elif ! grep -Eiq 'stands? in' /tmp/out.ib-tmp; then
		fail $name "output does not say DRAM or a page cache stands in for pmem"
	else
		pass $name
	fi
	rm -f $f
	timed $name "$t"
}

# --- check 4/5: the test programs, and copy_safe against a truncated file ------
# hwpoison_passed OUT: Criterion's --verbose output OUT shows the poisoning
# test passed, not skipped.
hwpoison_passed() {
	grep -q '^\[PASS\] copy_safe_signals::hardware_poison' "$1"
}

check_suite() {
	prefix=$1
	n=0
	skipped=
	for tp in $T/test_*; do
		[ -x "$tp" ] || continue
		n=$((n + 1))
		b=$(basename "$tp")
		# Pure computations and simulations: nothing in them depends on the
		# device, the kernel or the CPU model, and the host suite runs them
		# in full. Under TCG they would take most of the guest's time.
		case "$b" in
		test_pmemtest_replay | test_pmemtest_oracle | test_copy_safe_early)
			skipped="$skipped $b"
			continue
			;;
		esac
		t=$(now)
		if run "$b" "$tp" --jobs=2; then
			pass "$prefix-suite:$b"
		else
			fail "$prefix-suite:$b" "exit $rc: $(grep -m 1 -E 'Synthesis|FAIL|rror' "/tmp/out.$b")"
		fi
		timed "$prefix-suite:$b" "$t"
	done
	[ $n -gt 0 ] || fail "$prefix-suite" "no tests/test_* programs were built into the image"
	[ -z "$skipped" ] || say RESULT "$prefix-suite" "host-only (device-, kernel- and CPU-independent):$skipped"
	# The test that poisons a page must really run here, the one place it
	# may: a skip (the opt-in lost, no CONFIG_MEMORY_FAILURE, no
	# CAP_SYS_ADMIN) lets its program above pass all the same.
	t=$(now)
	c="$prefix-hwpoison-ran"
	if run hwpoison $T/test_copy_safe_signals --filter=copy_safe_signals/hardware_poison --verbose &&
	   hwpoison_passed /tmp/out.hwpoison; then
		pass "$c"
	else
		fail "$c" "copy_safe_signals::hardware_poison did not run and pass: $(grep hardware_poison /tmp/out.hwpoison | tail -n 1)"
	fi
	timed "$c" "$t"
	for what in flushcache copy-safe; do
		t=$(now)
		if [ $what = flushcache ]; then c="$prefix-flushcache-on-dax"; else c="$prefix-copy-safe-truncated"; fi
		if run "$what" $K/kflush-vmdax $what /mnt/pmem; then
			pass "$c"
		else
			fail "$c" "$(grep -m 1 -E '^FAIL|kflush-vmdax:' "/tmp/out.$what")"
		fi
		timed "$c" "$t"
	done
}

# --- check 5: genuine old CPUID --------------------------------------------------
# The variants a CPU with SSE2 and CLFLUSH but none of ERMS, FSRM, AVX2,
# AVX-512, CLWB, CLFLUSHOPT, MOVDIR64B, PREFETCHW or CLZERO can run: the
# movnti, plain-mov, rep movsq/stosq and clflush code (the kernel's own
# fallbacks). Named here, not read from the registry under test, and
# allowed rather than forbidden: "tuned" needs ERMS and AVX2, "rep_stosb"
# ERMS, and neither name says so.
OLD_CPU_VARIANTS="movnti kernel clflush orig mov rep_stosq rep_stosq_page rep_movsq
	movsq movsq_tail_overlap movsq_tail_linus movsq_tail_first"
# old_cpu_bound_problems FLAT: why the operations bound in pmemtest's
# flattened --json info are not all old-CPU variants (nothing when they are).
# An empty list or an operation without a bound variant is a problem too.
old_cpu_bound_problems() {
	awk -F '\t' -v ok="$OLD_CPU_VARIANTS" '
		BEGIN { n = split(ok, v, /[ \t\n]+/); for (i = 1; i <= n; i++) good[v[i]] = 1 }
		$1 ~ /^\.operations\[[0-9]+\]\.op$/ { ops++; op = $2 }
		$1 ~ /^\.operations\[[0-9]+\]\.bound$/ {
			bound++
			if (!($2 in good)) { printf "%sbound %s=%s on a CPU without it", sep, op, $2; sep = "; " }
		}
		END {
			if (!ops || ops != bound)
				printf "%s%d operations and %d bound variants listed", sep, ops, bound
		}' "$1"
}

check_oldcpu() {
	t=$(now)
	name=5-oldcpu-cpuid
	flags=$(grep -m 1 '^flags' /proc/cpuinfo)
	say RESULT $name "model=\"$(grep -m 1 '^model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')\""
	why=
	for f in avx2 erms clwb clflushopt avx512f; do
		echo " $flags " | grep -q " $f " && why="$why${why:+; }guest CPU has $f"
	done
	if ! run info-old $K/pmemtest info; then
		why="$why${why:+; }pmemtest info failed"
	else
		feat=$(grep -Ei '^ *(cpu )?features|after mask|raw' /tmp/out.info-old)
		for f in avx2 erms clwb clflushopt avx512f; do
			echo " $feat " | grep -Eq "[ \"]${f}[ \",]" && why="$why${why:+; }pmemtest sees $f"
		done
		echo " $feat " | grep -Eq '[ "]clflush[ ",]' || why="$why${why:+; }pmemtest does not see clflush"
		echo " $feat " | grep -Eq '[ "]sse2[ ",]' || why="$why${why:+; }pmemtest does not see sse2"
	fi
	# What got bound: nothing may need a feature this CPU lacks.
	if run info-old-json $K/pmemtest --json info; then
		awk -f /etc/jsonflat.awk /tmp/out.info-old-json >/tmp/info-old.flat
		say RESULT 5-oldcpu-bound "$(awk -F '\t' '$1 ~ /\.op$/ { op = $2 }
			$1 ~ /\.bound$/ { printf "%s=%s ", op, $2 }' /tmp/info-old.flat)"
		b=$(old_cpu_bound_problems /tmp/info-old.flat)
		[ -z "$b" ] || why="$why${why:+; }$b"
	else
		why="$why${why:+; }pmemtest --json info failed"
	fi
	if [ -z "$why" ]; then pass $name; else fail $name "$why"; fi
	timed $name "$t"
}

# --- check 6: the kernel's memmap_init_zone_device next to the replay -----------
# Kernel rebinds and replay runs alternate in rounds, so a change in the
# host's load hits both sides alike; medians are reported per page.

# rebind NS N: disable and enable a namespace N times.
rebind() {
	i=0
	while [ $i -lt "$2" ]; do
		$K/ndctl disable-namespace "$1" >/dev/null 2>&1 &&
			$K/ndctl enable-namespace "$1" >/dev/null 2>&1 || return 1
		i=$((i + 1))
	done
	i=0
	while [ ! -e /dev/dax0.0 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# replay_samples OUTFILE: the slow method's samples in ms, one a line (its
# mean when there are none), then "pages P" (P is "-" when not found), from
# pmemtest's JSON (pmemtest(1), OUTPUT SCHEMA: results[] with "contender"
# and samples[].ns; the namespace's pfns_initialised).
replay_samples() {
	awk -f /etc/jsonflat.awk "$1" >"$1.flat" 2>/dev/null
	obj=$(awk -F '\t' '$1 ~ /^\.results\[[0-9]+\]\.contender$/ && $2 == "slow" {
		sub(/\.contender$/, "", $1); print $1; exit }' "$1.flat")
	pages=
	if [ -n "$obj" ]; then
		awk -F '\t' -v pre="$obj.samples[" 'index($1, pre) == 1 && $1 ~ /\.ns$/ { print $2 / 1e6 }' \
			"$1.flat" >"$1.s"
		[ -s "$1.s" ] || awk -F '\t' -v k="$obj.mean_ns" '$1 == k { print $2 / 1e6 }' "$1.flat" >"$1.s"
		pages=$(awk -F '\t' '$1 ~ /^\.namespaces\[0\]\.pfns_initialised$/ { print $2; exit }' "$1.flat")
	else
		: >"$1.s"
	fi
	cat "$1.s"
	echo "pages ${pages:--}"
}

# stats FILE: "n mean median" of the numbers in FILE, one a line.
stats() {
	sort -n "$1" | awk '{ v[n++] = $1; sum += $1 }
		END { if (n) printf "%d %.2f %.2f\n", n, sum / n, (n % 2) ? v[int(n / 2)] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

check_kernel_vs_replay() {
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	if ! echo 'func memmap_init_zone_device +p' >/sys/kernel/debug/dynamic_debug/control; then
		fail 6-kernel-vs-replay "cannot enable the dynamic-debug line"
		return
	fi
	umount /mnt/pmem
	rounds=5
	per=$(((rebinds + rounds - 1) / rounds))
	for kind in devdax fsdax; do
		t=$(now)
		name=6-kernel-vs-replay-$kind
		if [ $kind = devdax ]; then
			ns=namespace0.0
			geom=
		else
			# The fsdax geometry, replayed onto the same pmem (the devdax
			# device). Device DAX maps only whole 2 MiB extents, so the size
			# is rounded down to make the memmap (size / 64) one; the times
			# are compared per page.
			ns=namespace1.0
			geom="--mode fsdax --align 4K --size $((pmem_size / (128 * MIB) * (128 * MIB)))"
		fi
		dmesg -c >/dev/null
		: >/tmp/replay.$kind
		why=
		r=0
		while [ $r -lt $rounds ] && [ -z "$why" ]; do
			r=$((r + 1))
			rebind $ns $per || why="rebinding $ns failed"
			[ -z "$why" ] || break
			if ! run "rp-$kind" $K/pmemtest --json --dev /dev/dax0.0 --force init-bench $geom \
				--memmap dev --methods slow --repeat "$per"; then
				why="pmemtest replay failed (needs issue 4's init-bench)"
				break
			fi
			replay_samples "/tmp/out.rp-$kind" >>/tmp/replay.$kind
		done
		dmesg | awk '/memmap_init_zone_device initialised/ {
			for (i = 1; i < NF; i++) if ($i == "initialised") break
			ms = $(i + 4); sub(/ms$/, "", ms); print ms + 0
			print $(i + 1) >"/tmp/kpages"
		}' >/tmp/kernel.$kind
		if [ -s /tmp/kernel.$kind ]; then
			kpages=$(tail -n 1 /tmp/kpages)
			set -- $(stats /tmp/kernel.$kind)
			say RESULT $name "kernel pages=$kpages rebinds=$1 mean_ms=$2 median_ms=$3"
		elif [ -z "$why" ]; then
			why="no 'memmap_init_zone_device initialised' lines after rebinding $ns"
		fi
		if [ -n "$why" ]; then
			fail $name "$why"
			timed $name "$t"
			continue
		fi
		rpages=$(awk '$1 == "pages" { p = $2 } END { print p }' /tmp/replay.$kind)
		grep -v '^pages' /tmp/replay.$kind >/tmp/replay.$kind.ms
		set -- $(stats /tmp/kernel.$kind) $(stats /tmp/replay.$kind.ms)
		if [ $# -ne 6 ]; then
			fail $name "cannot find the slow method's times in pmemtest's output"
			timed $name "$t"
			continue
		fi
		# A figure, never a verdict: under TCG the ratio of two emulated
		# timings says nothing about fidelity (it read 0.35-0.70 on the
		# same code on AMD and Intel hosts). The check passes when both
		# sides were measured; fidelity is a byte comparison.
		line=$(awk -v km="$3" -v kp="$kpages" -v n="$4" -v rmean="$5" -v rm="$6" -v rp="$rpages" 'BEGIN {
			f = (rp ~ /^[0-9]+$/ && rp > 0) ? kp / rp : 1
			printf "replay pages=%s runs=%d mean_ms=%.2f median_ms=%.2f median_per_kernel_pages_ms=%.2f replay/kernel=%.2f (reported, not checked)\n",
				rp, n, rmean, rm, rm * f, rm * f / km
		}')
		say RESULT $name "$line"
		pass $name
		timed $name "$t"
	done
}

# --- check 8: real pmem clients on the drop-ins (issue 11) --------------------------
# fio's dev-dax engine on /dev/dax0.0 (its writes are pmem_memcpy_persist)
# and its libpmem engine on the DAX ext4 (pmem_memcpy with flags, direct=0
# and 1), with libkflush-pmem.so.1 preloaded and every block verified by
# crc32c; the drop-in's KFLUSH_PMEM_STATS must count exactly fio's writes.
# Then the libpmem2 client on the DAX ext4 with libkflush-pmem2.so.1: real
# MAP_SYNC, so libpmem2 itself picks cache-line granularity, not forced.
D1=/opt/kflush/lib/libkflush-pmem.so.1
D2=/opt/kflush/lib/libkflush-pmem2.so.1
# fio_dropin NAME ENGINE WANT-REGEX SIZE BS ARGS...: one fio job under the drop-in.
fio_dropin() {
	n=$1 engine=$2 re=$3 size=$4 bs=$5
	shift 5
	if ! run "$n" env LD_PRELOAD=$D1 KFLUSH_PMEM_STATS=1 $K/fio --name=$n --ioengine=$engine \
		--size=$size --bs=$bs --rw=write --verify=crc32c --verify_fatal=1 \
		--verify_state_save=0 --thread --output-format=terse "$@"; then
		fail "$n" "fio --ioengine=$engine under the drop-in failed"
		return
	fi
	got=$(awk -v re="$re" '$1 == "libkflush-pmem:" && $2 ~ re { c += $3; b += $5 }
		END { printf "%d %d", c, b }' /tmp/out.$n)
	want="$((size / bs)) $size"
	if [ "$got" != "$want" ]; then
		fail "$n" "drop-in counted '$got' calls/bytes, fio writes '$want'"
	else
		say RESULT "$n" "$engine bs=$bs: $got calls/bytes through libkflush-pmem, crc32c verified"
		pass "$n"
	fi
}

check_fio() {
	t=$(now)
	if [ ! -x $K/fio ] || [ ! -f $D1 ]; then
		fail 8-fio "fio or $D1 missing from the initramfs"
		return
	fi
	fio_dropin 8-fio-devdax dev-dax '^pmem_memcpy_persist$' $((8 * MIB)) 65536 \
		--filename=/dev/dax0.0
	fio_dropin 8-fio-libpmem-direct libpmem '^pmem_memcpy' $((8 * MIB)) 4096 \
		--directory=/mnt/pmem --direct=1
	fio_dropin 8-fio-libpmem-buffered libpmem '^pmem_memcpy' $((8 * MIB)) 65536 \
		--directory=/mnt/pmem --direct=0
	rm -f /mnt/pmem/8-fio-*
	timed 8-fio "$t"

	pmem2_dropin 8-pmem2 cache_line
}

# pmem2_dropin NAME GRANULARITY: the libpmem2 client on the DAX ext4 under
# libkflush-pmem2.so.1, where libpmem2 itself must have chosen GRANULARITY
# (MAP_SYNC: cache_line on ADR, byte on eADR; nothing forced), every byte
# right and all six functions the drop-in's, counted at that granularity.
pmem2_dropin() {
	t=$(now)
	c=$K/pmem2_client
	if [ ! -x $c ] || [ ! -f $D2 ]; then
		fail "$1" "pmem2_client or $D2 missing from the initramfs"
	elif ! run pmem2 env LD_PRELOAD=$D2 KFLUSH_PMEM_STATS=1 "$c" /mnt/pmem/pmem2; then
		fail "$1" "the libpmem2 client failed under the drop-in on the DAX ext4"
	elif ! grep -qx "granularity: $2" /tmp/out.pmem2; then
		fail "$1" "libpmem2 did not give the DAX file $2 granularity: $(grep granularity /tmp/out.pmem2)"
	elif [ "$(grep -c "_fn: $D2\$" /tmp/out.pmem2)" -ne 6 ] ||
	     ! grep -q "^libkflush-pmem2: memcpy_fn/$2 [1-9]" /tmp/out.pmem2; then
		fail "$1" "the client's functions are not the drop-in's, or it counted none at $2"
	else
		say RESULT "$1" "$2 (MAP_SYNC): $(grep -c "_fn/$2 " /tmp/out.pmem2) functions counted, bytes right"
		pass "$1"
	fi
	rm -f /mnt/pmem/pmem2
	timed "$1" "$t"
}

# --- check 9: the platform's persistence domain, as the drop-ins read it ---------
# The host told QEMU (nvdimm-persistence, echoed as kflush.persistence)
# whether the CPU caches are inside the persistence domain: mem-ctrl (ADR)
# for the main boot, cpu (eADR) for the old-CPU one. The kernel reads that
# from the NFIT into every region's persistence_domain; PMDK's libpmem then
# flushes or not (pmem_has_auto_flush(), PMEM_NO_FLUSH) and libpmem2 gives
# MAP_SYNC mappings cache-line or byte granularity, and the drop-ins must
# follow. tests/test_pmem_eadr.sh checks the same rule over fake sysfs
# layouts on the host; here the kernel writes sysfs. The expectations come
# from the host's QEMU option, never from the libraries.
check_persistence() {
	name=9-persistence-$phase
	t=$(now)
	case "$persistence" in
	cpu) want=cpu_cache auto=1 gran=byte ;;
	mem-ctrl) want=memory_controller auto=0 gran=cache_line ;;
	*) fail "$name" "kflush.persistence='$persistence' is neither cpu nor mem-ctrl"; return ;;
	esac
	why= seen=
	for r in /sys/bus/nd/devices/region*; do
		[ -f "$r/persistence_domain" ] || continue
		d=$(cat "$r/persistence_domain")
		seen="$seen $(basename "$r")=${d:-(empty)}"
		[ "$d" = "$want" ] || why="$why${why:+; }$(basename "$r") reads '$d', want $want"
	done
	[ -n "$seen" ] || why="no region has a persistence_domain"
	say RESULT "$name" "qemu nvdimm-persistence=$persistence:$seen"
	# tests/test_pmem_noflush: the real libpmem traced against PMDK's rule
	# (KFLUSH_TEST_PMEM_FLUSH, KFLUSH_TEST_AUTO_FLUSH), then the drop-in
	# against both; unset and "yes" leave the choice to the platform.
	for v in unset yes 0 1; do
		case $v in
		unset) flush=$((1 - auto)) filter='!(pmem2_byte)/*' ;;
		yes) flush=$((1 - auto)) filter='mode/*' ;;
		*) flush=$((1 - v)) filter='mode/*' ;;
		esac
		set -- env KFLUSH_TEST_AUTO_FLUSH=$auto KFLUSH_TEST_PMEM_FLUSH=$flush
		[ $v = unset ] || set -- "$@" PMEM_NO_FLUSH=$v
		if ! run "noflush-$v" "$@" $T/test_pmem_noflush --jobs=2 --filter "$filter"; then
			why="$why${why:+; }test_pmem_noflush with PMEM_NO_FLUSH=$v (flush=$flush):"
			why="$why $(grep -m 1 -E 'Synthesis|FAIL|rror' "/tmp/out.noflush-$v")"
		fi
	done
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
	timed "$name" "$t"
	# The main boot's check 8 ran the libpmem2 client at cache_line.
	if [ "$gran" = byte ]; then
		pmem2_dropin 9-pmem2-eadr byte
	fi
}

# --- check 7: a last bind of both namespaces, for the host's byte comparison ---
# The host compares the struct pages the kernel wrote into the images with
# pmemtest's replay (run.sh, kflush-memmap-cmp); faults since a bind leave
# mapping/index in them, so both are rebound last and nothing maps them again.
check_final_bind() {
	t=$(now)
	umount /mnt/pmem 2>/dev/null
	if rebind namespace0.0 1 && rebind namespace1.0 1; then
		say RESULT 7-final-bind "namespace0.0 namespace1.0 rebound, untouched until poweroff"
		pass 7-final-bind
	else
		fail 7-final-bind "rebinding the namespaces failed"
	fi
	timed 7-final-bind "$t"
}

case "$phase" in
main)
	check_info
	check_dev_default
	check_dev_renamed
	check_dev_memmap
	check_fsdax_file
	check_fio
	check_persistence
	check_suite 4
	check_kernel_vs_replay
	check_final_bind
	;;
oldcpu)
	check_oldcpu
	check_persistence
	check_suite 5
	;;
*)
	fail setup "unknown phase $phase"
	;;
esac
timed total 0
poweroff_now
