/* Kernels the VGIW compiler must refuse (kernels in bad.S). */
#include "program.h"

void calls(void);
void jumps(void);

int main(void)
{
  launch(2, calls);
  launch(2, jumps);
  return 0;
}
