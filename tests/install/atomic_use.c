/* SPDX-License-Identifier: MIT */
/*
 * atomic_use.c - mask.h's atomic bit operations, one function each, built
 * as C and as C++ (-x c++) by headers.sh, to compare with atomic_ref.c.
 */
#include <cidkit/mask.h>

#ifdef __cplusplus
extern "C" {
#endif
void f_set(struct cidk_mask *m, unsigned int b);
void f_clear(struct cidk_mask *m, unsigned int b);
bool f_test(const struct cidk_mask *m, unsigned int b);
bool f_tas(struct cidk_mask *m, unsigned int b);
bool f_tac(struct cidk_mask *m, unsigned int b);

void f_set(struct cidk_mask *m, unsigned int b) { cidk_mask_set_atomic(m, b); }
void f_clear(struct cidk_mask *m, unsigned int b) { cidk_mask_clear_atomic(m, b); }
bool f_test(const struct cidk_mask *m, unsigned int b) { return cidk_mask_test_atomic(m, b); }
bool f_tas(struct cidk_mask *m, unsigned int b) { return cidk_mask_test_and_set_atomic(m, b); }
bool f_tac(struct cidk_mask *m, unsigned int b) { return cidk_mask_test_and_clear_atomic(m, b); }
#ifdef __cplusplus
}
#endif
