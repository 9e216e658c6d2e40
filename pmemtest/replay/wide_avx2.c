// SPDX-License-Identifier: MIT
/* "wide" with pairs of 32-byte AVX2 NT stores; built with -mavx2. */
#include "methods.h"
#include "wide.h"

REPLAY_FOR_SIZES(REPLAY_DEFINE_WIDE, 0, wide256)

replay_fn replay_wide_avx2_fn(unsigned int sp)
{
	switch (sp) { REPLAY_FOR_SIZES(REPLAY_CASE, 0, wide256) default: return NULL; }
}
