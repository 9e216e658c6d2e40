// SPDX-License-Identifier: MIT
/* "wide" with 64-byte AVX-512 NT stores; built with -mavx512f. */
#include "methods.h"
#include "wide.h"

REPLAY_FOR_SIZES(REPLAY_DEFINE_WIDE, 1, wide512)

replay_fn replay_wide_avx512_fn(unsigned int sp)
{
	switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, 1, wide512) default: return NULL; }
}
