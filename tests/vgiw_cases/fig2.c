/* Directed VGIW kernels (kernels in fig2.S): the nested conditional of seed 004's
 * Figures 1 and 2, and a block whose loads and stores touch the same word. */
#include "program.h"

#define N 8
/* Threads 1, 3, 8 (1-based, as the paper counts) go BB1 -> BB2 -> BB6; 2, 7 go
 * BB1 -> BB3 -> BB4 -> BB6; 4, 5, 6 go BB1 -> BB3 -> BB5 -> BB6. */
unsigned path[N] = {0, 1, 0, 2, 2, 2, 1, 0};
unsigned out[N];

#define M 96
unsigned buf[M], twice[M];

void fig2(void);
void same_word(void);

int main(void)
{
  poison(out, sizeof out);
  launch(N, fig2);
  for (unsigned t = 0; t < N; t++) {
    unsigned want = path[t] == 0 ? t * 3 : path[t] == 1 ? t + 100 : t ^ 0x55;
    if (out[t] != want)
      return 1 + t;
  }
  for (unsigned t = 0; t < M; t++)
    buf[t] = t * 7;
  poison(twice, sizeof twice);
  launch(M, same_word);
  for (unsigned t = 0; t < M; t++)
    if (buf[t] != t * 7 + 1 || twice[t] != (t * 7 + 1) * 2 + t * 7)
      return 20 + (t < 200 ? t : 200);
  return 0;
}
