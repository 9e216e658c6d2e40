// SPDX-License-Identifier: MIT
/*
 * Device discovery. daxctl alone sees every dax device, including those
 * with no ndctl namespace behind them (CXL, hmem): the case where a tool
 * that insists on a namespace (PMDK's) fails. ndctl adds what only the
 * namespace knows: its mode and where the kernel keeps the memmap.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>

#include <daxctl/libdaxctl.h>
#include <ndctl/libndctl.h>

#include "devices.h"

static const char *loc_name(enum ndctl_pfn_loc loc)
{
	switch (loc) {
	case NDCTL_PFN_LOC_PMEM: return "dev";
	case NDCTL_PFN_LOC_RAM: return "mem";
	case NDCTL_PFN_LOC_NONE: break;
	}
	return "?";
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src ? src : "");
}

/* Fill in from the ndctl namespace whose dax region is region_id, if any. */
static void ndctl_describe(int region_id, struct devices_info *d)
{
	struct ndctl_ctx *ctx;
	struct ndctl_bus *bus;

	if (ndctl_new(&ctx) < 0)
		return;
	ndctl_bus_foreach(ctx, bus) {
		struct ndctl_region *region;

		ndctl_region_foreach(bus, region) {
			struct ndctl_namespace *ndns;

			ndctl_namespace_foreach(region, ndns) {
				struct ndctl_dax *dax = ndctl_namespace_get_dax(ndns);
				struct daxctl_region *dr;

				if (!dax || !ndctl_dax_is_enabled(dax))
					continue;
				dr = ndctl_dax_get_daxctl_region(dax);
				if (!dr || daxctl_region_get_id(dr) != region_id)
					continue;
				d->ndctl = true;
				copy_str(d->ns, sizeof(d->ns), ndctl_namespace_get_devname(ndns));
				copy_str(d->region, sizeof(d->region), ndctl_region_get_devname(region));
				copy_str(d->map, sizeof(d->map), loc_name(ndctl_dax_get_location(dax)));
				d->numa_node = ndctl_namespace_get_numa_node(ndns);
				goto out;
			}
		}
	}
out:
	ndctl_unref(ctx);
}

static void dax_fill(struct daxctl_region *region, struct daxctl_dev *dev, struct devices_info *d)
{
	memset(d, 0, sizeof(*d));
	copy_str(d->chardev, sizeof(d->chardev), daxctl_dev_get_devname(dev));
	snprintf(d->region, sizeof(d->region), "dax_region%d", daxctl_region_get_id(region));
	copy_str(d->mode, sizeof(d->mode), "devdax");
	copy_str(d->map, sizeof(d->map), "?");
	d->size = daxctl_dev_get_size(dev);
	d->align = daxctl_dev_get_align(dev);
	if (!d->align)
		d->align = daxctl_region_get_align(region);
	d->numa_node = -1;
	d->target_node = daxctl_dev_get_target_node(dev);
	ndctl_describe(daxctl_region_get_id(region), d);
}

int devices_dax_lookup(dev_t rdev, struct devices_info *out)
{
	struct daxctl_region *region;
	struct daxctl_ctx *ctx;
	int rc = -ENOENT;

	if (daxctl_new(&ctx) < 0)
		return -ENOENT;
	daxctl_region_foreach(ctx, region) {
		struct daxctl_dev *dev;

		daxctl_dev_foreach(region, dev) {
			if ((unsigned int)daxctl_dev_get_major(dev) == major(rdev) &&
			    (unsigned int)daxctl_dev_get_minor(dev) == minor(rdev)) {
				dax_fill(region, dev, out);
				rc = 0;
				goto out;
			}
		}
	}
out:
	daxctl_unref(ctx);
	return rc;
}

static const char *mode_name(enum ndctl_namespace_mode m)
{
	switch (m) {
	case NDCTL_NS_MODE_FSDAX: return "fsdax";
	case NDCTL_NS_MODE_SECTOR: return "sector";
	case NDCTL_NS_MODE_RAW: return "raw";
	case NDCTL_NS_MODE_DEVDAX: return "devdax";
	case NDCTL_NS_MODE_UNKNOWN: break;
	}
	return "unknown";
}

/*
 * The block device and usable size of a namespace the way "ndctl list"
 * reports them. An fsdax namespace with a pfn device (map=dev or mem) is
 * claimed by the pfn: its disk (pmem1) hangs off the pfn, so
 * ndctl_namespace_get_block_device() is empty, and its usable size is the
 * pfn's data area (ndctl_pfn_get_size), not the raw namespace: with
 * map=dev the kernel keeps the memmap in the difference. Sector mode
 * likewise goes through the btt.
 */
static void ndctl_block_describe(struct ndctl_namespace *ndns, enum ndctl_namespace_mode m,
				 struct devices_info *d)
{
	struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
	struct ndctl_btt *btt = ndctl_namespace_get_btt(ndns);
	unsigned long long size = ULLONG_MAX;
	const char *bdev = NULL;

	if (m == NDCTL_NS_MODE_SECTOR && btt) {
		bdev = ndctl_btt_get_block_device(btt);
		size = ndctl_btt_get_size(btt);
	} else if (m == NDCTL_NS_MODE_FSDAX && pfn) {
		bdev = ndctl_pfn_get_block_device(pfn);
		size = ndctl_pfn_get_size(pfn);
	}
	if (!bdev || !*bdev)
		bdev = ndctl_namespace_get_block_device(ndns);
	if (size == ULLONG_MAX || !size)
		size = ndctl_namespace_get_size(ndns);
	copy_str(d->blockdev, sizeof(d->blockdev), bdev);
	d->size = size == ULLONG_MAX ? 0 : size;
}

/* pmem namespaces that are not devdax (those are listed through daxctl). */
static int ndctl_block_namespaces(void (*fn)(const struct devices_info *d, void *arg), void *arg)
{
	struct ndctl_ctx *ctx;
	struct ndctl_bus *bus;
	int n = 0;

	if (ndctl_new(&ctx) < 0)
		return 0;
	ndctl_bus_foreach(ctx, bus) {
		struct ndctl_region *region;

		ndctl_region_foreach(bus, region) {
			struct ndctl_namespace *ndns;

			ndctl_namespace_foreach(region, ndns) {
				enum ndctl_namespace_mode m = ndctl_namespace_get_mode(ndns);
				struct ndctl_pfn *pfn = ndctl_namespace_get_pfn(ndns);
				struct devices_info d;

				if (m == NDCTL_NS_MODE_DEVDAX || !ndctl_namespace_is_active(ndns))
					continue;
				memset(&d, 0, sizeof(d));
				d.ndctl = true;
				copy_str(d.ns, sizeof(d.ns), ndctl_namespace_get_devname(ndns));
				ndctl_block_describe(ndns, m, &d);
				copy_str(d.region, sizeof(d.region), ndctl_region_get_devname(region));
				copy_str(d.mode, sizeof(d.mode), mode_name(m));
				copy_str(d.map, sizeof(d.map), pfn ? loc_name(ndctl_pfn_get_location(pfn)) : "?");
				d.align = pfn ? ndctl_pfn_get_align(pfn) : 0;
				d.numa_node = ndctl_namespace_get_numa_node(ndns);
				d.target_node = -1;
				fn(&d, arg);
				n++;
			}
		}
	}
	ndctl_unref(ctx);
	return n;
}

int devices_foreach(void (*fn)(const struct devices_info *d, void *arg), void *arg)
{
	struct daxctl_region *region;
	struct daxctl_ctx *ctx;
	int n = 0;

	if (daxctl_new(&ctx) >= 0) {
		daxctl_region_foreach(ctx, region) {
			struct daxctl_dev *dev;

			daxctl_dev_foreach(region, dev) {
				struct devices_info d;

				if (!daxctl_dev_get_size(dev))
					continue;	/* the region's seed device */
				dax_fill(region, dev, &d);
				fn(&d, arg);
				n++;
			}
		}
		daxctl_unref(ctx);
	}
	return n + ndctl_block_namespaces(fn, arg);
}
