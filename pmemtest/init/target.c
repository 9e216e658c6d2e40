// SPDX-License-Identifier: MIT
/*
 * init-bench's namespaces: what --dev names (checked on the open file),
 * or the embedded default; where their geometry comes from and how big
 * their memmap is. storage.c maps the memory it is written to.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "../common/devices.h"
#include "init.h"
#include "../common/cli.h"

static bool is_devdax_chardev(dev_t rdev)
{
	char path[128], link[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/dev/char/%u:%u/subsystem", major(rdev), minor(rdev));
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return strcmp(basename(link), "dax") == 0;
}

/*
 * A regular file of one of the kernel's own file systems is no namespace:
 * its size is a placeholder (0 in /proc, 4096 in /sys) or a device's
 * registers (a PCI resource file), never room for a memmap to go.
 */
static const char *kernel_fs_name(unsigned long f_type)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ PROC_SUPER_MAGIC, "/proc (procfs)" }, { SYSFS_MAGIC, "/sys (sysfs)" },
		{ DEBUGFS_MAGIC, "debugfs" }, { TRACEFS_MAGIC, "tracefs" },
		{ SECURITYFS_MAGIC, "securityfs" }, { CGROUP_SUPER_MAGIC, "cgroupfs" },
		{ CGROUP2_SUPER_MAGIC, "cgroup2fs" }, { BPF_FS_MAGIC, "bpffs" },
		{ EFIVARFS_MAGIC, "efivarfs" }, { PSTOREFS_MAGIC, "pstore" },
		{ BINFMTFS_MAGIC, "binfmt_misc" },
	};

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++)
		if (f_type == fs[i].magic)
			return fs[i].name;
	return NULL;
}

/*
 * Whether what path names (st, and the file system it is on) can hold a
 * namespace: a devdax device or a regular file. @fd is -1 before the
 * path is opened, where the type decides whether opening it is safe (a
 * fifo's open() waits for a writer); afterwards the same rules run again
 * on the open file, which is what gets mapped, since the path may have
 * been swapped in between. Prints the error and returns false.
 */
static bool target_kind_ok(const char *path, int fd, const struct stat *st)
{
	const char *was = fd < 0 ? "" : "changed while it was opened: ";
	const char *kfs;
	struct statfs sfs;

	if (S_ISDIR(st->st_mode) || S_ISFIFO(st->st_mode) || S_ISSOCK(st->st_mode)) {
		cli_err("%s: %sis a %s, not a devdax device or a file", path, was,
			cli_file_kind(st->st_mode));
		return false;
	}
	if (S_ISBLK(st->st_mode)) {
		cli_err("%s: %sis a block device; give its devdax device or a file on its fsdax filesystem",
			path, was);
		return false;
	}
	if (S_ISCHR(st->st_mode) && !is_devdax_chardev(st->st_rdev)) {
		cli_err("%s: %scharacter device %u:%u is not a devdax device", path, was,
			major(st->st_rdev), minor(st->st_rdev));
		return false;
	}
	if (!S_ISCHR(st->st_mode) && !S_ISREG(st->st_mode)) {
		cli_err("%s: %snot a devdax device or a regular file", path, was);
		return false;
	}
	if (S_ISREG(st->st_mode) &&
	    (fd < 0 ? statfs(path, &sfs) : fstatfs(fd, &sfs)) == 0 &&
	    (kfs = kernel_fs_name((unsigned long)sfs.f_type))) {
		cli_err("%s: %sis a file of the kernel's %s, not a devdax device or a file to hold a namespace",
			path, was, kfs);
		return false;
	}
	return true;
}

/*
 * --dev: the namespace a device or file describes. Errors exit 1. Every
 * decision is made on the open file: a devdax device is found by its
 * number, not by the name of the node it was opened through.
 */
int init_describe_target(const struct pmemtest_global *g, const struct init_opts *o, struct init_ns *ns)
{
	const char *path = g->dev;
	struct stat st;
	int fd;

	(void)o;
	memset(ns, 0, sizeof(*ns));
	ns->fd = -1;
	ns->map_fd = -1;
	ns->path = path;
	snprintf(ns->dev_map, sizeof(ns->dev_map), "?");
	if (stat(path, &st) < 0) {
		cli_err_errno("%s", path);
		return PMEMTEST_EXIT_FAIL;
	}
	if (!target_kind_ok(path, -1, &st))
		return PMEMTEST_EXIT_FAIL;
	/* O_NONBLOCK: should the path have been swapped for a fifo meanwhile. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		cli_err_errno("%s", path);
		return PMEMTEST_EXIT_FAIL;
	}
	ns->fd = fd;
	snprintf(ns->name, sizeof(ns->name), "%s", path);
	if (fstat(fd, &st) < 0) {
		cli_err_errno("%s", path);
		return PMEMTEST_EXIT_FAIL;
	}
	if (!target_kind_ok(path, fd, &st))
		return PMEMTEST_EXIT_FAIL;
	if (S_ISCHR(st.st_mode)) {
		struct devices_info d;
		const char *base;

		if (devices_dax_lookup(st.st_rdev, &d) < 0) {
			cli_err("%s: character device %u:%u: no dax device with that number in libdaxctl's list",
				path, major(st.st_rdev), minor(st.st_rdev));
			return PMEMTEST_EXIT_FAIL;
		}
		ns->devdax = true;
		ns->data_only = true;
		ns->size = ns->target_size = d.size;
		ns->align = d.align ? d.align : INIT_DEFAULT_ALIGN;
		snprintf(ns->dev_map, sizeof(ns->dev_map), "%s", d.map);
		base = strrchr(path, '/');
		if (!g->quiet && strcmp(base ? base + 1 : path, d.chardev) != 0)
			fprintf(stderr, "note: %s is %s (character device %u:%u)\n", path, d.chardev,
				major(st.st_rdev), minor(st.st_rdev));
		if (!d.ndctl && !g->quiet)
			fprintf(stderr, "note: %s has no ndctl namespace; geometry from daxctl %s\n",
				path, d.region);
		return PMEMTEST_EXIT_OK;
	}
	if (st.st_size == 0) {
		cli_err("%s: empty file: too small for a namespace", path);
		return PMEMTEST_EXIT_FAIL;
	}
	/* Whether a file is real DAX is only known once libpmem2 maps it. */
	ns->size = ns->target_size = (uint64_t)st.st_size;
	ns->align = INIT_DEFAULT_ALIGN;
	return PMEMTEST_EXIT_OK;
}

/* The seed's two namespaces, emulated: nd_pmem (fsdax) and dax_pmem (devdax). */
int init_embedded(const struct init_opts *o, struct init_ns *ns, int nr)
{
	int n = 0;

	for (int devdax = 0; devdax < 2 && n < nr; devdax++) {
		struct init_ns *x = &ns[n];

		if (o->mode >= 0 && o->mode != devdax)
			continue;
		memset(x, 0, sizeof(*x));
		x->fd = -1;
		x->map_fd = -1;
		x->devdax = devdax;
		snprintf(x->name, sizeof(x->name), "%s", devdax ? "dax_pmem" : "nd_pmem");
		snprintf(x->dev_map, sizeof(x->dev_map), "dev");
		x->size = INIT_DEFAULT_SIZE;
		x->align = INIT_DEFAULT_ALIGN;
		n++;
	}
	return n;
}

/*
 * memmap_init_zone_device()'s range. With an altmap the first pfns hold the
 * info block and the memmap itself and are skipped (vmem_altmap_offset()):
 * drivers/nvdimm/pfn_devs.c nd_pfn_init() puts the data at
 * ALIGN(start + SZ_8K + MAX_STRUCT_PAGE_SIZE (64) * npfns, align), npfns
 * counting the pfns after the 8 KiB info block and align at least
 * memremap_compat_align() (2 MiB); larger struct pages need
 * page_struct_override and take their own size. Compound pages cover
 * whole aligned blocks. Returns 0, or PMEMTEST_EXIT_FAIL with a message.
 */
int init_geometry(struct init_ns *ns)
{
	uint64_t apfns = ns->align >> REPLAY_PAGE_SHIFT, start = 0, end;
	unsigned int ppc = 1;
	struct replay_ns *r = &ns->rp;
	char b1[32], b2[32];

	ns->npfns = ns->size >> REPLAY_PAGE_SHIFT;
	ns->memmap_bytes = ns->npfns * ns->sp;
	if (ns->devdax && apfns > 1)
		ppc = (unsigned int)apfns;
	/*
	 * The altmap's pfns are skipped only where the namespace includes
	 * them: the embedded namespaces and files. A real devdax device is
	 * already the data area after the kernel's memmap (data_only).
	 */
	if (ns->altmap && !ns->data_only) {
		uint64_t sb_npfns = ns->size > INIT_INFO_BYTES ?
				    (ns->size - INIT_INFO_BYTES) >> REPLAY_PAGE_SHIFT : 0;
		uint64_t a = ns->align > (2ULL << 20) ? ns->align : 2ULL << 20;

		/* Within the info block (8 KiB or less) nothing is left: refused below. */
		start = sb_npfns ? init_round_up(INIT_INFO_BYTES + (ns->sp > 64 ? ns->sp : 64) * sb_npfns,
					    a) >> REPLAY_PAGE_SHIFT : ns->npfns;
	}
	end = ns->npfns < start ? start : start + (ns->npfns - start) / ppc * ppc;
	if (end <= start) {
		char b3[32];

		cli_err("%s: %s is too small for the memmap: %s of struct pages%s, then data in %s%s blocks",
		       ns->name, cli_fmt_bytes(ns->size, b1, sizeof(b1)),
		       cli_fmt_bytes(ns->memmap_bytes, b2, sizeof(b2)),
		       ns->altmap ? " at its start" : "",
		       cli_fmt_bytes(ns->align, b3, sizeof(b3)), ppc > 1 ? " compound" : "-aligned");
		return PMEMTEST_EXIT_FAIL;
	}
	memset(r, 0, sizeof(*r));
	r->k = ns->kernel ? ns->kernel : replay_kernel_default();
	r->sp = ns->sp;
	r->sp_rt = ns->sp;
	r->base_pfn = INIT_BASE_PFN;
	r->start_pfn = INIT_BASE_PFN + start;
	r->end_pfn = INIT_BASE_PFN + end;
	r->ppc = ppc;
	r->order = (unsigned int)__builtin_ctz(ppc);
	r->devdax = ns->devdax;
	r->compound_nr = ppc;
	/* vmemmap_can_optimize(): no altmap and a power-of-two struct page. */
	ns->vmemmap_opt = ppc > 1 && !ns->altmap && !(ns->sp & (ns->sp - 1));
	if (ns->vmemmap_opt)
		r->compound_nr = 2 * 4096 / ns->sp;
	ns->write_lo = start * ns->sp;
	ns->write_hi = end * ns->sp;
	ns->pfns_init = (end - start) / ppc * r->compound_nr;
	ns->written = ns->pfns_init * ns->sp;
	ns->backed = ns->vmemmap_opt ? (end - start) / ppc * init_round_up(r->compound_nr * ns->sp, 4096)
				     : init_round_up(ns->write_hi - ns->write_lo, 4096);
	return PMEMTEST_EXIT_OK;
}

/*
 * The file init_describe_target() looked at, opened again for writing:
 * through /proc/self/fd, so that nothing the path may name by now is
 * opened, and held to the same device and inode as ns->fd all the same
 * (without /proc, the path is opened, and a file swapped in meanwhile is
 * refused there). Returns the descriptor, or -1 with the error printed.
 */
int init_target_open_rw(const struct init_ns *ns)
{
	struct stat was, now;
	char proc[64];
	int fd;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", ns->fd);
	fd = open(proc, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		fd = open(ns->path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		cli_err_errno("%s: cannot open for writing", ns->path);
		return -1;
	}
	if (fstat(ns->fd, &was) < 0 || fstat(fd, &now) < 0 || was.st_dev != now.st_dev ||
	    was.st_ino != now.st_ino) {
		cli_err("%s: changed since it was described; nothing written", ns->path);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Before announcing what --force overwrites: can we write at all? Mode
 * bits are honoured even for root, who could otherwise open a 0444 file.
 */
int init_check_writable(const struct init_ns *ns)
{
	struct stat st;
	int fd = init_target_open_rw(ns);

	if (fd < 0)
		return PMEMTEST_EXIT_FAIL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && !(st.st_mode & 0222)) {
		cli_err("%s: read-only file (mode %04o); --memmap dev needs a writable target",
		       ns->path, (unsigned int)(st.st_mode & 07777));
		close(fd);
		return PMEMTEST_EXIT_FAIL;
	}
	close(fd);
	return PMEMTEST_EXIT_OK;
}
