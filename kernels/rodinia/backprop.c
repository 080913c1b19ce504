/* backprop: Rodinia backprop's bpnn_adjust_weights kernel (seed 004, Table 2, "BPNN":
 * adjust_weights), single precision: the weights from 256 input units (and a bias
 * unit) to 16 hidden units after one training step, w += dw, oldw = dw with
 * dw = eta * delta[k] * ly[j] + momentum * oldw[j][k], eta = momentum = 0.3 (Rodinia's
 * ETA and MOMENTUM, which its CUDA code multiplies in double precision). A thread a
 * weight of input j = 1..256 and hidden unit k = 1..16 (4,096 threads, the most a
 * launch may have; w and oldw 257 x 17, row and column 0 the bias); the threads of
 * input 1 (Rodinia's `ty == 0 && by == 0`) also adjust the bias row,
 * dw = eta * delta[k] + momentum * oldw[0][k]. The reference: the same operations,
 * weight by weight. */
#include "../program.h"

#define IN 256
#define HID 16
#define ETA 0.3f
#define MOMENTUM 0.3f

static float w[IN + 1][HID + 1], oldw[IN + 1][HID + 1], delta[HID + 1], ly[IN + 1];
static float ref_w[IN + 1][HID + 1], ref_oldw[IN + 1][HID + 1];

static void adjust_weights(void)
{
  unsigned j = 1 + tidx() / HID, k = 1 + tidx() % HID;
  float dw = ETA * delta[k] * ly[j] + MOMENTUM * oldw[j][k];
  w[j][k] += dw;
  oldw[j][k] = dw;
  if (j == 1) {
    float bias = ETA * delta[k] + MOMENTUM * oldw[0][k];
    w[0][k] += bias;
    oldw[0][k] = bias;
  }
}

int main(void)
{
  /* Rodinia's initial weights are random in [-1, 1) (bpnn_randomize_weights), its
   * inputs in [0, 1), the deltas small; oldw nonzero, as after a first step. */
  for (unsigned j = 0; j <= IN; j++) {
    ly[j] = (float)(lcg() % 4096) / 4096.0f;
    for (unsigned k = 0; k <= HID; k++) {
      w[j][k] = ref_w[j][k] = (float)((int)(lcg() % 8192) - 4096) / 4096.0f;
      oldw[j][k] = ref_oldw[j][k] = (float)((int)(lcg() % 2048) - 1024) / 65536.0f;
    }
  }
  for (unsigned k = 0; k <= HID; k++)
    delta[k] = (float)((int)(lcg() % 2048) - 1024) / 8192.0f;
  launch(IN * HID, adjust_weights);
  for (unsigned j = 1; j <= IN; j++)
    for (unsigned k = 1; k <= HID; k++) {
      float dw = ETA * delta[k] * ly[j] + MOMENTUM * ref_oldw[j][k];
      ref_w[j][k] += dw;
      ref_oldw[j][k] = dw;
    }
  for (unsigned k = 1; k <= HID; k++) {
    float bias = ETA * delta[k] + MOMENTUM * ref_oldw[0][k];
    ref_w[0][k] += bias;
    ref_oldw[0][k] = bias;
  }
  int bad = mismatch(w, ref_w, (IN + 1) * (HID + 1), 4);
  return bad ? bad : mismatch(oldw, ref_oldw, (IN + 1) * (HID + 1), 4);
}
