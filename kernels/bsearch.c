/* bsearch: parallel look-ups of keys in a sorted array of key-value pairs (seed 000,
 * section 5: "bsearch uses a binary search algorithm to perform parallel look-ups into
 * a sorted array of key-value pairs"; Table 2, custom). One thread a query; the search
 * leaves its loop when it finds the key, so threads diverge on the data; the bounds move
 * by masks. 3,000 queries:
 * the last warp is partial (3,000 = 93 x 32 + 24). */
#include "program.h"

#define KEYS 4096
#define QUERIES 3000
#define NOT_FOUND 0xffffffffu

static unsigned keys[KEYS], values[KEYS], queries[QUERIES], found[QUERIES];
static unsigned ref[QUERIES];

static void bsearch_kernel(void)
{
  unsigned q = tidx(), key = queries[q], result = NOT_FOUND;
  unsigned lo = 0, hi = KEYS;
  while (lo < hi) {
    unsigned mid = (lo + hi) / 2, k = keys[mid];
    if (k == key) {
      result = values[mid];
      break;
    }
    /* lo = mid + 1 if k < key, else hi = mid: by a mask, not a branch (the FG version's
     * only divergence is the search's end). */
    unsigned below = -(unsigned)(k < key);
    lo = (lo & ~below) | ((mid + 1) & below);
    hi = (hi & below) | (mid & ~below);
  }
  found[q] = result;
}

/* The reference: the first key not below `key` (a lower bound), then equality. */
static unsigned lookup(unsigned key)
{
  unsigned first = 0, count = KEYS;
  while (count > 0) {
    unsigned half = count / 2;
    if (keys[first + half] < key) {
      first += half + 1;
      count -= half + 1;
    } else {
      count = half;
    }
  }
  return first < KEYS && keys[first] == key ? values[first] : NOT_FOUND;
}

int main(void)
{
  unsigned key = 0;
  for (unsigned i = 0; i < KEYS; i++) {
    key += 1 + lcg() % 8;
    keys[i] = key;
    values[i] = lcg();
  }
  /* Half the queries are keys of the array, half anything in its range (most absent). */
  for (unsigned q = 0; q < QUERIES; q++)
    queries[q] = q % 2 ? keys[lcg() % KEYS] : lcg() % (key + 2);
  poison(found, sizeof found);
  launch(QUERIES, bsearch_kernel);
  for (unsigned q = 0; q < QUERIES; q++)
    ref[q] = lookup(queries[q]);
  return mismatch(found, ref, QUERIES, 4);
}
