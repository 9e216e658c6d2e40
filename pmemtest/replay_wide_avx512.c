// SPDX-License-Identifier: MIT
/* "wide" with 64-byte AVX-512 NT stores; built with -mavx512f. */
#include "replay_impl.h"
#include "replay_wide.h"

RP_FOR_SIZES(RP_DEFINE_WIDE, 1, wide512)

rp_fn rp_wide_avx512_fn(unsigned int sp)
{
	switch (sp) { RP_FOR_SIZES(RP_CASE, 1, wide512) default: return NULL; }
}
