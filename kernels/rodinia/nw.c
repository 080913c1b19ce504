/* nw: Rodinia nw's Needleman-Wunsch global alignment (seed 004, Table 2, "NW"): the
 * score matrix of two sequences of 128 symbols of 24 (Rodinia's BLOSUM62 alphabet),
 * integer, gap penalty 10. Cell (i, j) is the maximum of its upper-left neighbour plus
 * the substitution score of the pair, and its left and upper neighbours minus the
 * penalty; row 0 and column 0 are -penalty x index. The wavefront: a launch an
 * anti-diagonal i + j = d (255 launches of 1..128 threads), a thread a cell, the
 * maximum of three by branches. Rodinia's kernels sweep 16 x 16 tiles in shared
 * memory, a diagonal of tiles a launch (needle_cuda_shared_1 for the upper-left
 * triangle, _2 for the lower-right); here the tiles are one cell. The substitution
 * table: symmetric, 4..11 on the diagonal and -4..3 off it (BLOSUM62's ranges), from
 * the LCG; as in Rodinia the host expands it into a matrix of the pairs' scores. The
 * reference: row by row. */
#include "../program.h"

#define LEN 128
#define SYMBOLS 24
#define PENALTY 10
#define COLS (LEN + 1)

static int score[COLS * COLS], ref[COLS * COLS], pair[COLS * COLS];
static int table[SYMBOLS][SYMBOLS];
static unsigned char seq1[LEN], seq2[LEN];
static unsigned diagonal, first; /* d = i + j; the first row i on it */

static void needle(void)
{
  unsigned i = first + tidx(), j = diagonal - i, x = i * COLS + j;
  int best = score[x - COLS - 1] + pair[x];
  int left = score[x - 1] - PENALTY, up = score[x - COLS] - PENALTY;
  if (left > best)
    best = left;
  if (up > best)
    best = up;
  score[x] = best;
}

int main(void)
{
  for (unsigned s = 0; s < SYMBOLS; s++)
    for (unsigned t = 0; t <= s; t++)
      table[s][t] = table[t][s] = s == t ? 4 + (int)(lcg() % 8) : (int)(lcg() % 8) - 4;
  for (unsigned i = 0; i < LEN; i++) {
    seq1[i] = lcg() % SYMBOLS;
    /* The second sequence: the first with 1/4 of its symbols changed. */
    seq2[i] = lcg() % 4 ? seq1[i] : lcg() % SYMBOLS;
  }
  poison(score, sizeof score);
  for (unsigned i = 1; i < COLS; i++)
    for (unsigned j = 1; j < COLS; j++)
      pair[i * COLS + j] = table[seq1[i - 1]][seq2[j - 1]];
  for (unsigned k = 0; k < COLS; k++) {
    score[k] = ref[k] = -PENALTY * (int)k;
    score[k * COLS] = ref[k * COLS] = -PENALTY * (int)k;
  }
  for (diagonal = 2; diagonal <= 2 * LEN; diagonal++) {
    first = diagonal > LEN ? diagonal - LEN : 1;
    unsigned last = diagonal - 1 < LEN ? diagonal - 1 : LEN;
    launch(last - first + 1, needle);
  }
  for (unsigned i = 1; i < COLS; i++)
    for (unsigned j = 1; j < COLS; j++) {
      unsigned x = i * COLS + j;
      int diag = ref[x - COLS - 1] + pair[x], left = ref[x - 1] - PENALTY;
      int up = ref[x - COLS] - PENALTY;
      ref[x] = diag > left ? (diag > up ? diag : up) : (left > up ? left : up);
    }
  return mismatch(score, ref, COLS * COLS, 4);
}
