/* viterbi: hard-decision Viterbi decoding of 8 frames of a rate-1/2, constraint-length
 * 7 convolutional code (generators 133 and 171 octal, 64 states), 58 data bits and 6
 * tail zeros a frame, 1 in 16 received bits flipped (seed 000, section 5: "Iterative
 * calculation of survivor paths and their accumulated error are parallelized across
 * paths. Each thread performs an add-compare-select butterfly operation to compute the
 * error for two paths simultaneously, which requires unpredictable accesses to a lookup
 * table"; Table 2, custom). `vit_acs`, one launch a stage, a thread a (frame,
 * butterfly) pair (256 threads, a warp a frame): butterfly j takes old states j and
 * j + 32 to new states 2j and 2j + 1; the branch metrics are lookups indexed by the
 * received symbol (data-dependent addresses). `vit_traceback`, a thread a frame (8
 * threads: one partial warp): a uniform loop over the stages, backwards from state 0.
 * The host's reference decodes state by state, with the encoder's outputs for all 128
 * registers (no complement). */
#include "program.h"

#define FRAMES 8
#define STAGES 64
#define TAIL 6
#define STATES 64
#define G0 0133u
#define G1 0171u

static unsigned char message[FRAMES][STAGES], received[FRAMES][STAGES];
static unsigned char decision[FRAMES][STAGES][STATES], decoded[FRAMES][STAGES];
static unsigned metric[2][FRAMES][STATES];
/* The encoder's output for the register (old state j, new bit b) = 2j + b, j < 32 (for
 * old state j + 32 it is the complement: both generators tap the oldest bit); and the
 * Hamming weight of a 2-bit symbol. */
static unsigned char output[STATES], weight[4] = {0, 1, 1, 2};
/* The stage a launch of vit_acs computes, and the path metrics before and after it. */
static unsigned stage, *old_metric, *new_metric;

static unsigned char ref_decision[FRAMES][STAGES][STATES], ref_decoded[FRAMES][STAGES];
static unsigned ref_metric[FRAMES][STATES], ref_next[STATES];
static unsigned char ref_output[2 * STATES];

static void vit_acs(void)
{
  unsigned t = tidx(), f = t / 32, j = t % 32;
  const unsigned *old = old_metric + f * STATES;
  unsigned r = received[f][stage], m0 = old[j], m1 = old[j + 32];
  for (unsigned b = 0; b < 2; b++) {
    unsigned e = output[2 * j + b];
    unsigned from0 = m0 + weight[r ^ e], from1 = m1 + weight[r ^ e ^ 3];
    unsigned d = from1 < from0;
    /* The smaller by a mask, not a branch: the butterflies never diverge. */
    new_metric[f * STATES + 2 * j + b] = from0 ^ ((from0 ^ from1) & -d);
    decision[f][stage][2 * j + b] = d;
  }
}

static void vit_traceback(void)
{
  unsigned f = tidx(), state = 0;
  for (unsigned s = STAGES; s-- > 0;) {
    decoded[f][s] = state % 2;
    state = state / 2 | decision[f][s][state] << 5;
  }
}

static unsigned parity(unsigned x)
{
  unsigned p = 0;
  for (; x != 0; x /= 2)
    p ^= x % 2;
  return p;
}

/* The encoder's 2-bit symbol for a 7-bit register (oldest bit highest). */
static unsigned encode(unsigned reg)
{
  return parity(reg & G0) << 1 | parity(reg & G1);
}

/* The Hamming distance of two 2-bit symbols. */
static unsigned distance(unsigned a, unsigned b)
{
  return (a ^ b) % 2 + (a ^ b) / 2;
}

static void reference(unsigned f)
{
  for (unsigned s = 0; s < STATES; s++)
    ref_metric[f][s] = s == 0 ? 0 : 100;
  for (unsigned s = 0; s < STAGES; s++) {
    unsigned r = received[f][s];
    for (unsigned next = 0; next < STATES; next++) {
      unsigned p0 = next / 2, p1 = next / 2 + 32, b = next % 2;
      unsigned from0 = ref_metric[f][p0] + distance(r, ref_output[p0 * 2 + b]);
      unsigned from1 = ref_metric[f][p1] + distance(r, ref_output[p1 * 2 + b]);
      ref_decision[f][s][next] = from1 < from0;
      ref_next[next] = from1 < from0 ? from1 : from0;
    }
    for (unsigned next = 0; next < STATES; next++)
      ref_metric[f][next] = ref_next[next];
  }
  unsigned state = 0;
  for (unsigned s = STAGES; s-- > 0;) {
    ref_decoded[f][s] = state % 2;
    state = state / 2 | ref_decision[f][s][state] << 5;
  }
}

int main(void)
{
  for (unsigned reg = 0; reg < 2 * STATES; reg++)
    ref_output[reg] = encode(reg);
  for (unsigned reg = 0; reg < STATES; reg++)
    output[reg] = ref_output[reg];
  for (unsigned f = 0; f < FRAMES; f++) {
    unsigned state = 0;
    for (unsigned s = 0; s < STAGES; s++) {
      message[f][s] = s < STAGES - TAIL ? lcg() % 2 : 0;
      unsigned reg = state * 2 + message[f][s];
      received[f][s] = encode(reg) ^ (lcg() % 16 == 0) ^ (lcg() % 16 == 0) << 1;
      state = reg % STATES;
    }
    for (unsigned s = 0; s < STATES; s++)
      metric[0][f][s] = s == 0 ? 0 : 100;
  }
  poison(decoded, sizeof decoded);
  for (stage = 0; stage < STAGES; stage++) {
    old_metric = &metric[stage % 2][0][0];
    new_metric = &metric[(stage + 1) % 2][0][0];
    launch(FRAMES * 32, vit_acs);
  }
  launch(FRAMES, vit_traceback);
  for (unsigned f = 0; f < FRAMES; f++)
    reference(f);
  int bad = mismatch(decoded, ref_decoded, FRAMES * STAGES, 1);
  return bad ? bad : mismatch(metric[STAGES % 2], ref_metric, FRAMES * STATES, 4);
}
