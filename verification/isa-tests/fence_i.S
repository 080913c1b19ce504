# fence.i: instructions stored to memory are fetched after fence.i (self-modifying code).
#include "isa_test.h"

TEST_BEGIN

li TESTNUM, 1
la a1, patch
la a2, replacement
lw a3, 0(a2)
sw a3, 0(a1)
fence.i
patch: li a4, 1
CHECK(a4, 2)
j done
replacement: li a4, 2
done:

TEST_END
