// SPDX-License-Identifier: MIT
/* "wide" with pairs of 32-byte AVX2 NT stores; built with -mavx2. */
#include "replay_wide.h"
#define RP_WIDE_STORE(d, s, sp) wide_store((d), (s), (sp), 0)
#include "replay_impl.h"

RP_FOR_SIZES(RP_DEFINE_TMPL, RP_WIDE, wide256)

rp_fn rp_wide_avx2_fn(unsigned int sp)
{
	switch (sp) { RP_FOR_SIZES(RP_CASE, RP_WIDE, wide256) default: return NULL; }
}
