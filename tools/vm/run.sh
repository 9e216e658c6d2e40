#!/bin/sh
# SPDX-License-Identifier: MIT
# The QEMU NVDIMM rig: boot the installed Debian kernel with two emulated
# NVDIMMs (one devdax, one fsdax + ext4 -o dax) and run libkflush's
# real-device checks inside the guest, twice: on the emulator's newest CPU
# model and on an old one (Nehalem: no ERMS, AVX2, clflushopt or clwb).
#
#   tools/vm/run.sh [--srcdir DIR] BUILDDIR      (or: make check-vm)
#
# Exit 0 when every check passed, 1 when one failed or a guest did not
# finish, 77 when QEMU cannot start here (one line says why).
# Environment:
#   KFLUSH_VM_ACCEL     auto (KVM when it boots in time, else TCG) | kvm | tcg
#   KFLUSH_VM_NS_GIB    size of each NVDIMM in GiB (default 4; sparse files)
#   KFLUSH_VM_REBINDS   namespace rebinds / replay repeats for check 6 (default 10)
#   KFLUSH_VM_OLD_CPU   QEMU CPU model of the second boot (default Nehalem)
#   KFLUSH_VM_PHASES    which boots to run (default "main oldcpu")
#   KFLUSH_VM_TIMEOUT   seconds for both boots together (default 1200)
#   KFLUSH_VM_KERNEL    a /boot/vmlinuz-VERSION to boot (default: newest with modules)
#   KFLUSH_VM_NO_INSTALL=1   never apt-get install missing packages
#   KFLUSH_VM_KEEP=1    keep the temporary directory
set -u

srcdir=
while [ $# -gt 0 ]; do
	case "$1" in
	--srcdir) srcdir=$2; shift 2 ;;
	--srcdir=*) srcdir=${1#*=}; shift ;;
	-*) echo "usage: $0 [--srcdir DIR] BUILDDIR" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { echo "usage: $0 [--srcdir DIR] BUILDDIR" >&2; exit 2; }
[ -n "$srcdir" ] || srcdir=$(dirname "$0")/../..
srcdir=$(cd "$srcdir" && pwd)
builddir=$(cd "$1" && pwd) || exit 2

ns_gib=${KFLUSH_VM_NS_GIB:-4}
rebinds=${KFLUSH_VM_REBINDS:-10}
old_cpu=${KFLUSH_VM_OLD_CPU:-Nehalem}
phases=${KFLUSH_VM_PHASES:-main oldcpu}
budget=${KFLUSH_VM_TIMEOUT:-1200}
want_accel=${KFLUSH_VM_ACCEL:-auto}
accel=$want_accel
start=$(date +%s)

skip() {
	echo "check-vm: SKIPPED: $*"
	exit 77
}
say() { echo "check-vm: $*"; }

# --- what QEMU needs, installed from Debian's packages when we may ----------
have_busybox_static() {
	for b in /bin/busybox /usr/bin/busybox; do
		[ -x "$b" ] && ! ldd "$b" >/dev/null 2>&1 && return 0
	done
	return 1
}
missing_packages() {
	m=
	command -v qemu-system-x86_64 >/dev/null 2>&1 || m="$m qemu-system-x86"
	have_busybox_static || m="$m busybox-static"
	command -v ndctl >/dev/null 2>&1 || m="$m ndctl"
	command -v daxctl >/dev/null 2>&1 || m="$m daxctl"
	[ -x /sbin/mke2fs ] || [ -x /usr/sbin/mke2fs ] || m="$m e2fsprogs"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || m="$m linux-image-amd64"
	echo "$m"
}
missing=$(missing_packages)
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ] || [ -n "${KFLUSH_VM_NO_INSTALL:-}" ] ||
	   ! command -v apt-get >/dev/null 2>&1; then
		skip "missing Debian packages:$missing (apt-get install them as root)"
	fi
	say "installing$missing"
	# shellcheck disable=SC2086
	if ! { DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing ||
	       { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing; }; } \
		>/tmp/kflush-vm-apt.log 2>&1; then
		skip "apt-get install$missing failed (see /tmp/kflush-vm-apt.log)"
	fi
	missing=$(missing_packages)
	[ -z "$missing" ] || skip "still missing after apt-get:$missing"
fi

# The newest installed kernel that has the NVDIMM modules.
kernel=${KFLUSH_VM_KERNEL:-}
if [ -z "$kernel" ]; then
	for k in $(ls /boot/vmlinuz-* 2>/dev/null | sort -V); do
		v=${k#/boot/vmlinuz-}
		grep -q '/nd_pmem\.ko' "/lib/modules/$v/modules.dep" 2>/dev/null && kernel=$k
	done
fi
[ -n "$kernel" ] || skip "no /boot/vmlinuz-* with nd_pmem in /lib/modules/<version> (apt-get install linux-image-amd64)"
[ -r "$kernel" ] || skip "$kernel is not readable"
kver=${kernel#*/vmlinuz-}
[ -f "/lib/modules/$kver/modules.dep" ] || skip "no /lib/modules/$kver for $kernel"

# --- build the initramfs ---------------------------------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/kflush-vm.XXXXXX") || skip "cannot create a temporary directory"
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	if [ -n "${KFLUSH_VM_KEEP:-}" ]; then
		say "kept $work"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

t=$(date +%s)
if ! sh "$srcdir/tools/vm/mkinitramfs.sh" "$srcdir" "$builddir" "$kver" "$work" \
	"$work/initrd.gz" >"$work/mkinitramfs.log" 2>&1; then
	cat "$work/mkinitramfs.log"
	say "FAIL: could not build the guest initramfs"
	exit 1
fi
say "$(tail -n 1 "$work/mkinitramfs.log") in $(($(date +%s) - t)) s (kernel $kver)"

# Sparse backing files: only what the guest writes takes disk space.
for i in 0 1; do
	truncate -s "${ns_gib}G" "$work/nvdimm$i.img" || skip "cannot create ${ns_gib} GiB sparse files in $work"
done

# --- boot ------------------------------------------------------------------------
# persistence PHASE: what the emulated platform says survives power loss
# (QEMU's NFIT platform capabilities; the guest's check 9): ADR, memory
# controller only, for the main boot, as on most pmem hosts; eADR, CPU caches
# included, for the old-CPU boot, the only real kernel here to report
# cpu_cache.
persistence() {
	case "$1" in
	oldcpu) echo cpu ;;
	*) echo mem-ctrl ;;
	esac
}

# start_qemu ACCEL CPU PHASE LOG LIMIT: QEMU in the background, pid in $qpid.
start_qemu() {
	case "$1" in
	kvm) acc="-accel kvm" ;;
	*) acc="-accel tcg,thread=multi" ;;
	esac
	# shellcheck disable=SC2086
	timeout -k 5 "$5" qemu-system-x86_64 -nodefaults -display none -no-reboot -monitor none \
		$acc -cpu "$2" -smp 2 \
		-machine "pc,nvdimm=on,nvdimm-persistence=$(persistence "$3")" -m "2G,slots=4,maxmem=$((2 * ns_gib + 4))G" \
		-object "memory-backend-file,id=m0,share=on,mem-path=$work/nvdimm0.img,size=${ns_gib}G,align=2M" \
		-device nvdimm,id=nv0,memdev=m0 \
		-object "memory-backend-file,id=m1,share=on,mem-path=$work/nvdimm1.img,size=${ns_gib}G,align=2M" \
		-device nvdimm,id=nv1,memdev=m1 \
		-kernel "$kernel" -initrd "$work/initrd.gz" \
		-append "console=ttyS0 quiet loglevel=3 panic=-1 kflush.phase=$3 kflush.rebinds=$rebinds kflush.persistence=$(persistence "$3")" \
		-serial stdio </dev/null >"$4" 2>&1 &
	qpid=$!
}

# booted LOG SECONDS: wait until the guest's init reports, or give up.
booted() {
	i=0
	while [ "$i" -lt "$2" ]; do
		grep -q 'KFLUSH-VM: BOOTED' "$1" 2>/dev/null && return 0
		kill -0 "$qpid" 2>/dev/null || return 1
		sleep 1
		i=$((i + 1))
	done
	return 1
}

# tally LOG: the guest's own count (DONE pass=N fail=M) against the PASS and
# FAIL lines the host reads in LOG; says why when they differ. A report line
# broken on the serial console would otherwise go uncounted, and a lost
# FAIL line would read as a pass.
tally() {
	tr -d '\r' <"$1" | awk '
		/^KFLUSH-VM: PASS / { p++ }
		/^KFLUSH-VM: FAIL / { f++ }
		/^KFLUSH-VM: DONE / { d++; gp = gf = "?"
			for (i = 3; i <= NF; i++) {
				if ($i ~ /^pass=[0-9]+$/) gp = substr($i, 6) + 0
				if ($i ~ /^fail=[0-9]+$/) gf = substr($i, 6) + 0
			}
		}
		END {
			if (d != 1) printf "%d DONE lines", d
			else if (gp != p + 0 || gf != f + 0)
				printf "it counted pass=%s fail=%s, the console shows %d PASS and %d FAIL lines",
					gp, gf, p, f
		}'
}

# cannot_boot WHY: QEMU cannot run a guest here. Before any guest has run
# that is a skip (exit 77); after one has, its results stand and this boot
# is a failure, or a skip would hide them.
ran=
cannot_boot() {
	[ -n "$ran" ] || skip "$@"
	say "FAIL: $*"
}

# boot PHASE CPU_FOR_KVM CPU_FOR_TCG: one guest run, its console in $work/PHASE.log.
boot() {
	phase=$1
	log=$work/$phase.log
	left=$((budget - ($(date +%s) - start)))
	[ "$phase" = main ] && case "$phases" in *oldcpu*) left=$((left - 360)) ;; esac
	if [ "$left" -lt 60 ]; then
		say "FAIL: no time left for the $phase boot"
		return 1
	fi
	t=$(date +%s)
	if [ "$accel" != tcg ]; then
		if [ -w /dev/kvm ] && [ -r /dev/kvm ]; then
			start_qemu kvm "$2" "$phase" "$log" "$left"
			if booted "$log" 20; then
				accel=kvm
			else
				kill "$qpid" 2>/dev/null
				wait "$qpid" 2>/dev/null
				if [ "$want_accel" = kvm ]; then
					cannot_boot "KFLUSH_VM_ACCEL=kvm but KVM did not boot the guest within 20 s"
					return 1
				fi
				say "KVM did not boot the guest within 20 s; using TCG"
				accel=tcg
			fi
		else
			if [ "$want_accel" = kvm ]; then
				cannot_boot "KFLUSH_VM_ACCEL=kvm but /dev/kvm is not usable"
				return 1
			fi
			accel=tcg
		fi
	fi
	if [ "$accel" = tcg ]; then
		start_qemu tcg "$3" "$phase" "$log" "$left"
		booted "$log" 60 || true
	fi
	if grep -q 'KFLUSH-VM: BOOTED' "$log" 2>/dev/null; then
		up="guest init after $(($(date +%s) - t)) s"
	else
		up="guest init not reached yet"
	fi
	say "$phase boot: accel=$accel cpu=$([ "$accel" = kvm ] && echo "$2" || echo "$3"), $up"
	# Show the guest's report lines as they come.
	tail -n +1 -f --pid="$qpid" "$log" 2>/dev/null | tr -d '\r' |
		grep --line-buffered '^KFLUSH-VM: ' | sed -u "s/^KFLUSH-VM: /check-vm: [$phase] /"
	wait "$qpid"
	rc=$?
	qpid=
	cp "$log" "$builddir/tools/vm/check-vm-$phase.log" 2>/dev/null
	say "$phase boot finished in $(($(date +%s) - t)) s (qemu exit $rc)"
	# QEMU itself refused to start (bad host, no memory...): not our failure.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && ! grep -q 'KFLUSH-VM: BOOTED' "$log" &&
	   head -n 1 "$log" | grep -q '^qemu-system-x86_64:'; then
		cannot_boot "QEMU could not start: $(head -n 1 "$log")"
		return 1
	fi
	ran=1
	if ! tr -d '\r' <"$log" | grep -q '^KFLUSH-VM: DONE'; then
		[ "$rc" -eq 124 ] && say "FAIL: the $phase guest timed out after $left s"
		say "FAIL: the $phase guest did not finish; last console lines:"
		tr -d '\r' <"$log" | tail -n 25 | sed 's/^/  | /'
		return 1
	fi
	why=$(tally "$log")
	if [ -n "$why" ]; then
		say "FAIL: the $phase guest's report does not add up: $why"
		return 1
	fi
	return 0
}

# --- check 7 on the host: the kernel's struct pages against the replay --------------
# After the main guest's last bind (its check 7) the images hold the memmap
# its kernel wrote; pmemtest replays the same geometry and kflush-memmap-cmp
# compares every struct page (pointers normalised, all else exact). Run
# straight after the main boot: the old-CPU guest recreates both namespaces,
# puts a new ext4 on one and runs the suite on it, and never rebinds last.
hpass=0
hfail=0
compare_memmaps() {
	kv=$(tr -d '\r' <"$work/main.log" | sed -n 's/^KFLUSH-VM: BOOTED .*kernel=\([^ ]*\).*/\1/p' | head -n 1)
	case "$kv" in
	6.1.*) model=6.1 ;;
	*) say "7-memmap-bytes: no pmemtest kernel model for guest kernel '$kv'; not compared"; return ;;
	esac
	if ! tr -d '\r' <"$work/main.log" | grep -q '^KFLUSH-VM: PASS 7-final-bind'; then
		say "FAIL 7-memmap-bytes: the guest did not rebind the namespaces last"
		hfail=$((hfail + 1))
		return
	fi
	for kind in devdax fsdax; do
		img=$work/nvdimm0.img
		[ $kind = fsdax ] && img=$work/nvdimm1.img
		if ! "$builddir/pmemtest/pmemtest" --quiet init-bench --kernel $model --mode $kind \
			--size "${ns_gib}G" --align 2M --methods slow --repeat 1 \
			--replay-out "$work/replay-$kind.bin" >"$work/replay-$kind.log" 2>&1; then
			say "FAIL 7-memmap-bytes-$kind: pmemtest --replay-out failed: $(tail -n 1 "$work/replay-$kind.log")"
			hfail=$((hfail + 1))
			continue
		fi
		if "$builddir/tools/vm/kflush-memmap-cmp" "$img" "$work/replay-$kind.bin" $kind \
			>"$work/memmap-cmp-$kind.log" 2>&1; then
			sed 's/^/check-vm: /' "$work/memmap-cmp-$kind.log"
			say "PASS 7-memmap-bytes-$kind (kernel $kv, --kernel $model)"
			hpass=$((hpass + 1))
		else
			sed 's/^/check-vm: /' "$work/memmap-cmp-$kind.log"
			say "FAIL 7-memmap-bytes-$kind (kernel $kv, --kernel $model)"
			hfail=$((hfail + 1))
		fi
		cp "$work/memmap-cmp-$kind.log" "$builddir/tools/vm/" 2>/dev/null
	done
}

mkdir -p "$builddir/tools/vm"
ok=1
for phase in $phases; do
	case "$phase" in
	main)
		boot main host max || ok=0
		[ -f "$work/main.log" ] && compare_memmaps
		;;
	oldcpu) boot oldcpu "$old_cpu" "$old_cpu" || ok=0 ;;
	*) say "unknown phase $phase (main, oldcpu)"; exit 2 ;;
	esac
done

# --- the verdict -------------------------------------------------------------------
results=$(cat "$work/main.log" "$work/oldcpu.log" 2>/dev/null | tr -d '\r' | grep '^KFLUSH-VM: ')
npass=$(echo "$results" | grep -c '^KFLUSH-VM: PASS ')
nfail=$(echo "$results" | grep -c '^KFLUSH-VM: FAIL ')
[ "$ok" -eq 1 ] || nfail=$((nfail + 1))
npass=$((npass + hpass))
nfail=$((nfail + hfail))
echo
say "failed checks:"
echo "$results" | grep '^KFLUSH-VM: FAIL ' | sed 's/^KFLUSH-VM: FAIL /  /'
for phase in $phases; do
	say "$phase timings (s): $(tr -d '\r' <"$work/$phase.log" 2>/dev/null |
		awk '$2 == "TIME" { printf "%s%s=%s", sep, $3, $4; sep = " " }')"
done
echo "$results" | grep '^KFLUSH-VM: RESULT 6-' | sed 's/^KFLUSH-VM: RESULT /check-vm: /'

say "console logs: $builddir/tools/vm/check-vm-{main,oldcpu}.log; total $(($(date +%s) - start)) s"
echo "check-vm: $npass passed, $nfail failed"
[ "$nfail" -eq 0 ] && [ "$npass" -gt 0 ]
