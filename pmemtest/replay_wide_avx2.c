// SPDX-License-Identifier: MIT
/* "wide" with pairs of 32-byte AVX2 NT stores; built with -mavx2. */
#include "replay_impl.h"
#include "replay_wide.h"

RP_FOR_SIZES(RP_DEFINE_WIDE, 0, wide256)

rp_fn rp_wide_avx2_fn(unsigned int sp)
{
	switch (sp) { RP_FOR_SIZES(RP_CASE, 0, wide256) default: return NULL; }
}
