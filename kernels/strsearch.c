/* strsearch: Knuth-Morris-Pratt search of 256 byte streams for 8 substrings (seed 000,
 * section 5: "The search is parallelized by having all threads search for the same
 * substrings in different streams. The deterministic finite automatas used to model
 * substring-matching state machines are also generated in parallel"; Table 2, custom).
 * Symbols are 0..31. `ss_build`, a thread a (pattern, symbol) pair (256 threads, a warp
 * a pattern): the symbol's row of the pattern's DFA, whose restart states (the
 * pattern's borders) the thread finds by comparing the pattern with itself: loops with
 * data-dependent exits. `ss_search`, a thread a stream: for each pattern (a uniform
 * loop), the DFA run over the stream until the first match (a data-dependent exit),
 * whose position (or -1) it stores. */
#include "program.h"

#define STREAMS 256
#define LENGTH 96
#define SYMBOLS 32
#define PATTERNS 8
#define MAX_PATTERN 8

static unsigned char streams[STREAMS][LENGTH];
static unsigned char pattern[PATTERNS][MAX_PATTERN], pattern_length[PATTERNS];
static unsigned char dfa[PATTERNS][SYMBOLS][MAX_PATTERN];
static int first[STREAMS][PATTERNS], ref[STREAMS][PATTERNS];

/* The length of the longest proper border (prefix that is also a suffix) of p[0..j). */
static inline unsigned border(const unsigned char *p, unsigned j)
{
  for (unsigned k = j - 1; k > 0; k--) {
    unsigned i = 0;
    while (i < k && p[i] == p[j - k + i])
      i++;
    if (i == k)
      return k;
  }
  return 0;
}

static void ss_build(void)
{
  unsigned t = tidx(), p = t / SYMBOLS, c = t % SYMBOLS;
  const unsigned char *pat = pattern[p];
  unsigned char *next = dfa[p][c];
  /* In state j (j symbols matched), symbol c leads to j + 1 if it is the next one, else
   * where it leads from the restart state: the longest border of pat[0..j). */
  for (unsigned j = 0; j < pattern_length[p]; j++)
    next[j] = c == pat[j] ? j + 1 : j == 0 ? 0 : next[border(pat, j)];
}

static void ss_search(void)
{
  unsigned s = tidx();
  const unsigned char *str = streams[s];
  for (unsigned p = 0; p < PATTERNS; p++) {
    unsigned length = pattern_length[p], state = 0;
    int at = -1;
    for (unsigned i = 0; i < LENGTH; i++) {
      state = dfa[p][str[i]][state];
      if (state == length) {
        at = (int)(i + 1 - length);
        break;
      }
    }
    first[s][p] = at;
  }
}

/* The reference: the first position where the pattern stands, compared in full. */
static int naive(const unsigned char *str, unsigned p)
{
  unsigned length = pattern_length[p];
  for (unsigned i = 0; i + length <= LENGTH; i++) {
    unsigned j = 0;
    while (j < length && str[i + j] == pattern[p][j])
      j++;
    if (j == length)
      return (int)i;
  }
  return -1;
}

int main(void)
{
  /* Patterns of 3 to 8 symbols from 0..3 (so they have borders), streams of symbols
   * from 0..7 with a 1 in 32 chance of any symbol, and each pattern planted in a
   * stream with probability 3/8. */
  for (unsigned p = 0; p < PATTERNS; p++) {
    pattern_length[p] = 3 + p % 6;
    for (unsigned j = 0; j < pattern_length[p]; j++)
      pattern[p][j] = lcg() % 4;
  }
  for (unsigned s = 0; s < STREAMS; s++) {
    for (unsigned i = 0; i < LENGTH; i++)
      streams[s][i] = lcg() % 32 == 0 ? lcg() % SYMBOLS : lcg() % 8;
    for (unsigned p = 0; p < PATTERNS; p++)
      if (lcg() % 8 < 3) {
        unsigned at = lcg() % (LENGTH - pattern_length[p] + 1);
        for (unsigned j = 0; j < pattern_length[p]; j++)
          streams[s][at + j] = pattern[p][j];
      }
  }
  poison(first, sizeof first);
  launch(PATTERNS * SYMBOLS, ss_build);
  launch(STREAMS, ss_search);
  for (unsigned s = 0; s < STREAMS; s++)
    for (unsigned p = 0; p < PATTERNS; p++)
      ref[s][p] = naive(streams[s], p);
  return mismatch(first, ref, STREAMS * PATTERNS, 4);
}
