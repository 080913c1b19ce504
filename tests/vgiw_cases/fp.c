/* Directed VGIW kernels of every FP operation the fabric runs, 48 threads each, small
 * enough for the small preset: on the compute units' pipelined FP unit the fused
 * multiply-adds, add, sub, mul, min, max, sign injections, compares, fclass and the
 * conversions both ways; on the SCUs the divide and square root, beside an integer
 * divide and remainder; signs, zeros and a NaN among the operands. The VGIW tests
 * compare the memory with the ISS's (the outputs are not static, so that GCC keeps
 * their stores). */
#include "program.h"

#define N 48
/* A thread's operands and results in one record: one base address a thread. */
struct rec {
  float x, y, q, r, f[6];
  int i[7];
} d[N];

/* fmin.s and fmax.s themselves (GCC calls fminf and fmaxf for the builtins). */
static inline float fmin_s(float a, float b)
{
  float v;
  __asm__("fmin.s %0, %1, %2" : "=f"(v) : "f"(a), "f"(b));
  return v;
}

static inline float fmax_s(float a, float b)
{
  float v;
  __asm__("fmax.s %0, %1, %2" : "=f"(v) : "f"(a), "f"(b));
  return v;
}

static inline int fclass_s(float a)
{
  int v;
  __asm__("fclass.s %0, %1" : "=r"(v) : "f"(a));
  return v;
}

/* Divide and square root on the SCUs. */
static void fp_divide(void)
{
  struct rec *p = &d[tidx()];
  p->q = p->x / p->y;
  p->r = fsqrt(__builtin_fabsf(p->x));
}

/* The four fused multiply-adds. */
static void fp_fma(void)
{
  struct rec *p = &d[tidx()];
  float a = p->x, b = p->y;
  p->f[0] = __builtin_fmaf(a, b, p->q);
  p->f[1] = __builtin_fmaf(-a, b, -a);
  p->f[2] = __builtin_fmaf(a, b, -p->q);
  p->f[3] = __builtin_fmaf(-a, b, p->q);
}

/* Min, max, sign injection, float to int. */
static void fp_minmax(void)
{
  struct rec *p = &d[tidx()];
  float a = p->x, b = p->y;
  p->f[4] = fmin_s(a, b) * fmax_s(p->q, p->r);
  p->i[3] = __builtin_copysignf(p->r, b) - a;
}

/* Int to float, both signednesses; fclass, an integer remainder. */
static void fp_tofloat(void)
{
  unsigned t = tidx();
  d[t].f[5] = (float)(int)t * 0.5f + (float)(t * 3u);
  d[t].i[5] = (int)t % 7 + fclass_s(d[t].q);
}

/* Float to int, both signednesses; NaN and sign tests; an integer divide. */
static void fp_toint(void)
{
  unsigned t = tidx();
  struct rec *p = &d[t];
  p->i[4] = (int)t / ((int)t - 20 | 1);
  p->i[0] = (int)p->q;
  p->i[1] = (unsigned)(p->r * 100.0f);
  p->i[2] = __builtin_isnan(p->q) + 2 * __builtin_signbit(p->q);
}

/* Compares. */
static void fp_compare(void)
{
  struct rec *p = &d[tidx()];
  float a = p->x, b = p->y;
  p->i[6] = (a < b) + (a <= b) * 2 + (a == b);
}

int main(void)
{
  for (unsigned t = 0; t < N; t++) {
    d[t].x = (float)((int)t - 24) * 0.75f;
    d[t].y = t % 5 == 0 ? 0.0f : (float)(t % 7) - 2.5f;
  }
  d[7].x = __builtin_nanf("");
  d[9].y = -0.0f;
  launch(N, fp_divide);
  launch(N, fp_fma);
  launch(N, fp_minmax);
  launch(N, fp_tofloat);
  launch(N, fp_toint);
  launch(N, fp_compare);
  return 0;
}
