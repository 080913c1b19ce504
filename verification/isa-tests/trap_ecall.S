# ecall from M-mode: mcause 11, mepc = the ecall, mtval 0.
#include "isa_test.h"

TEST_BEGIN

TRAP_HANDLER
1: ecall
TRAP_CHECK(1, 11, 1b, 0)

TEST_END
