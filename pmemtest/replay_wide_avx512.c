// SPDX-License-Identifier: MIT
/* "wide" with 64-byte AVX-512 NT stores; built with -mavx512f. */
#include "replay_wide.h"
#define RP_WIDE_STORE(d, s, sp) wide_store((d), (s), (sp), 1)
#include "replay_impl.h"

RP_FOR_SIZES(RP_DEFINE_TMPL, RP_WIDE, wide512)

rp_fn rp_wide_avx512_fn(unsigned int sp)
{
	switch (sp) { RP_FOR_SIZES(RP_CASE, RP_WIDE, wide512) default: return NULL; }
}
